package dev.converge.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.store.internal.Dialects;
import dev.converge.Converge;
import dev.converge.queue.internal.JobStore;
import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import dev.converge.fixture.ExecutionLog;
import dev.converge.fixture.JoinGate;
import dev.converge.fixture.ScratchDatabase;
import dev.converge.fixture.TestStores;
import dev.converge.time.EngineClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several engines, each with a pool of its own as separate nodes would have, over ten thousand
 * jobs of one queue: every job is run once and completed once, none is lost, and all engines
 * share the work. The run is checked by an execution log the handlers write, independent of
 * what the engines count, and by the job rows themselves.
 */
class ClusterTest {
    record Work(int n) {
    }

    static final JobType<Work> WORK = JobType.of("cluster.work", Work.class);
    static final int JOBS = 10_000;
    static final int ENGINES = 4;

    @Test
    void fourEnginesOnPostgresRunTenThousandJobsExactlyOnce() {
        try (ScratchDatabase db = ScratchDatabase.create("cv_cluster")) {
            run(() -> TestStores.postgres(db, true, EngineClock.database(), 6));
        }
    }

    @Test
    void fourEnginesOnAnH2FileRunTenThousandJobsExactlyOnce(@TempDir Path dir) throws Exception {
        String url = "jdbc:h2:file:" + Files.createDirectories(dir).resolve("cluster");
        run(() -> Store.open(StoreConfig.newBuilder().url(url).maxPoolSize(6).build()));
    }

    private void run(Supplier<Store> stores) {
        ExecutionLog log = new ExecutionLog();
        List<Store> opened = new ArrayList<>();
        List<Converge> engines = new ArrayList<>();
        try {
            Store first = stores.get();
            opened.add(first);
            List<Job<Work>> jobs = new ArrayList<>();
            for (int i = 0; i < JOBS; i++) {
                jobs.add(Job.of(WORK, new Work(i)));
            }
            long[] ids;
            try (Converge producer = Converge.builder(first).declare(WORK).build()) {
                ids = producer.enqueueAll(jobs);
            }
            // no job finishes before every engine has started one, so the first engine up cannot take them all
            JoinGate gate = new JoinGate(ENGINES, Duration.ofSeconds(20));
            for (int e = 0; e < ENGINES; e++) {
                Store own = e == 0 ? first : stores.get();
                if (e > 0) {
                    opened.add(own);
                }
                String node = "node-" + e;
                engines.add(Converge.builder(own).nodeId(node).queues(q -> q.poll(Duration.ofMillis(100)))
                        .handle(WORK, (w, ctx) -> {
                            gate.arrive(node);
                            log.ran(ctx.jobId());
                        }).queue("default", 4).build().start());
            }
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(20))
                    .until(() -> engines.stream().mapToLong(x -> x.stats().succeeded()).sum() >= JOBS);

            List<Long> expected = new ArrayList<>();
            for (long id : ids) {
                expected.add(id);
            }
            ExecutionLog.Report report = log.check(expected);
            assertThat(report.exactlyOnce()).as(report.toString()).isTrue();
            assertThat(engines.stream().mapToLong(x -> x.stats().succeeded()).sum()).as("completions").isEqualTo(JOBS);
            assertThat(engines.stream().mapToLong(x -> x.stats().leaseLost() + x.stats().abandoned()).sum()).isZero();
            assertThat(engines).allSatisfy(x -> assertThat(x.stats().succeeded()).as("every engine took part").isPositive());
            Map<JobState, Long> counts = first.withConnection(c -> new JobStore(Dialects.forUrl(first.config().url(), first.config().schema())).countByState(c, null));
            assertThat(counts.get(JobState.SUCCEEDED)).isEqualTo(JOBS);
            assertThat(counts.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(JOBS);
        } finally {
            engines.forEach(Converge::close);
            opened.forEach(Store::close);
        }
    }
}
