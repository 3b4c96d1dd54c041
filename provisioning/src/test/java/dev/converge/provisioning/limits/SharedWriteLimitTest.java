package dev.converge.provisioning.limits;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.tenant.Tenants;
import dev.converge.store.Store;
import dev.converge.testkit.ScratchDatabase;
import dev.converge.testkit.TestStores;
import dev.converge.time.EngineClock;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * A tenant's write rate holds across API processes: two limiters (two processes, each with its own
 * pool) on one PostgreSQL database admit the tenant's rate between them, not twice it.
 */
class SharedWriteLimitTest {
    private static final int PER_MINUTE = 60;

    @Test
    void twoLimitersOnOneDatabaseAdmitTheTenantsRateInAllNotTwiceIt() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_write_rate");
                Store one = TestStores.postgres(db, true, EngineClock.database(), 10);
                Store two = TestStores.postgres(db, true, EngineClock.database(), 10)) {
            Provisioning.migrate(one);
            long tenant = new Tenants(one).create("acme").tenant().id();
            long other = new Tenants(one).create("globex").tenant().id();
            new Limits(one).update(tenant, null, null, null, PER_MINUTE);
            new Limits(one).update(other, null, null, null, PER_MINUTE);
            Limits a = new Limits(one);
            Limits b = new Limits(two);

            List<OptionalLong> answers = race(a, b, tenant, 8, 20); // 320 attempts within a few seconds
            long admitted = answers.stream().filter(OptionalLong::isEmpty).count();
            assertThat(admitted).as("a minute's rate, plus what refilled during the race; one limiter alone "
                    + "admits %d", PER_MINUTE).isBetween((long) PER_MINUTE, PER_MINUTE + 10L);
            assertThat(answers).filteredOn(OptionalLong::isPresent)
                    .allSatisfy(w -> assertThat(w.getAsLong()).as("Retry-After seconds").isBetween(1L, 60L));

            assertThat(a.tryWrite(other)).as("another tenant's bucket is its own").isEmpty();
            assertThat(b.tryWrite(other)).isEmpty();
        }
    }

    @Test
    void theSharedBucketWorksOnH2Too() {
        try (Store store = TestStores.h2(true, EngineClock.database())) {
            Provisioning.migrate(store);
            long tenant = new Tenants(store).create("acme").tenant().id();
            Limits limits = new Limits(store);
            limits.update(tenant, null, null, null, 3);
            assertThat(limits.tryShared(tenant, 3)).isEmpty();
            assertThat(limits.tryShared(tenant, 3)).isEmpty();
            assertThat(limits.tryShared(tenant, 3)).isEmpty();
            OptionalLong fourth = limits.tryShared(tenant, 3);
            assertThat(fourth).as("the fourth in a minute").isPresent();
            assertThat(fourth.getAsLong()).isBetween(1L, 20L);
        }
    }

    private static List<OptionalLong> race(Limits a, Limits b, long tenant, int threadsEach, int writesEach)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2 * threadsEach);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<List<OptionalLong>>> futures = new ArrayList<>();
            for (int i = 0; i < 2 * threadsEach; i++) {
                Limits l = i % 2 == 0 ? a : b;
                futures.add(pool.submit(() -> {
                    go.await();
                    List<OptionalLong> mine = new ArrayList<>();
                    for (int w = 0; w < writesEach; w++) {
                        mine.add(l.tryWrite(tenant));
                    }
                    return mine;
                }));
            }
            go.countDown();
            List<OptionalLong> all = new ArrayList<>();
            for (Future<List<OptionalLong>> f : futures) {
                all.addAll(f.get());
            }
            return all;
        } finally {
            pool.shutdownNow();
        }
    }
}
