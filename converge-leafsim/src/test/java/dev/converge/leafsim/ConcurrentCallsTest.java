package dev.converge.leafsim;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Many threads at once: uniqueness must hold where the real service enforces it. */
class ConcurrentCallsTest {
    static final int THREADS = 24;
    static LeafSim sim;

    @BeforeAll
    static void start() {
        sim = LeafSim.start(LeafSimConfig.builder().tokenForAll("t").build());
    }

    @AfterAll
    static void stop() {
        sim.close();
    }

    @Test
    void concurrentCreatesOfOneRepositoryNameMakeExactlyOne() throws Exception {
        SimClient git = new SimClient(sim.leafUrl(LeafSim.GITHOST), "t");
        List<Integer> statuses = race(() -> git.post("/orgs/race/repos", Map.of("name", "contested")));

        assertThat(statuses).filteredOn(s -> s == 201).hasSize(1);
        assertThat(statuses).filteredOn(s -> s == 422).hasSize(THREADS - 1);
        assertThat(sim.inventory(LeafSim.GITHOST).createsOf("contested")).isEqualTo(1);
    }

    @Test
    void concurrentLicenseCreatesWithOneIdempotencyKeyMakeOneLicense() throws Exception {
        SimClient licenses = new SimClient(sim.leafUrl(LeafSim.LICENSE), "t");
        List<Integer> statuses = race(() -> licenses.post("/sites", Map.of("name", "n", "domain", "idem.race.com"),
                Map.of("Idempotency-Key", "one-key")));

        assertThat(statuses).containsOnly(201);
        assertThat(sim.inventory(LeafSim.LICENSE).createsOf("idem.race.com")).isEqualTo(1);
    }

    @Test
    void concurrentLicenseCreatesWithoutAKeyMakeOneEach() throws Exception {
        SimClient licenses = new SimClient(sim.leafUrl(LeafSim.LICENSE), "t");
        race(() -> licenses.post("/sites", Map.of("name", "n", "domain", "many.race.com")));

        assertThat(sim.inventory(LeafSim.LICENSE).createsOf("many.race.com")).isEqualTo(THREADS);
        assertThat(sim.inventory(LeafSim.LICENSE).currentOf("many.race.com")).extracting(r -> r.id())
                .doesNotHaveDuplicates();
    }

    private static List<Integer> race(Callable<HttpResponse<String>> call) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<HttpResponse<String>>> futures = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                futures.add(pool.submit(() -> {
                    go.await();
                    return call.call();
                }));
            }
            go.countDown();
            List<Integer> statuses = new ArrayList<>();
            for (Future<HttpResponse<String>> future : futures) {
                statuses.add(future.get().statusCode());
            }
            return statuses;
        } finally {
            pool.shutdownNow();
        }
    }
}
