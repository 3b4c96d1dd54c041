package dev.converge.provisioning.site;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.lead.Leads;
import dev.converge.provisioning.tenant.Tenants;
import dev.converge.store.Store;
import dev.converge.testkit.ScratchDatabase;
import dev.converge.testkit.TestStores;
import dev.converge.time.EngineClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * A subscription racing the expiry of the same trial is decided once, by the one conditional write
 * each side makes: tried both ways in order, then side by side on real threads, on H2 and
 * PostgreSQL. A naive read-then-write shows what the check catches: both sides "win".
 */
class SubscriptionRaceTest {
    private static final int SITES = 150;

    @Test
    void eitherOrderHasOneOutcomeOnH2() throws Exception {
        try (Store store = TestStores.h2(true, EngineClock.database())) {
            eitherOrderHasOneOutcome(store);
        }
    }

    @Test
    void eitherOrderHasOneOutcomeOnPostgres() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("pv_sub_order");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 4)) {
            eitherOrderHasOneOutcome(store);
        }
    }

    @Test
    void racingThreadsHaveOneWinnerPerSiteOnPostgres() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("pv_sub_race");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 8)) {
            Fixture f = new Fixture(store);
            assertThat(f.race(false)).as("sites where both the subscription and the expiry won").isZero();
            f.assertEverySiteDecidedOnce();
        }
    }

    @Test
    void racingThreadsHaveOneWinnerPerSiteOnH2() throws Exception {
        try (Store store = TestStores.h2(true, EngineClock.database())) {
            Fixture f = new Fixture(store);
            assertThat(f.race(false)).as("sites where both the subscription and the expiry won").isZero();
            f.assertEverySiteDecidedOnce();
        }
    }

    @Test
    void aNaiveReadThenWriteLetsBothWinAndTheCheckSeesIt() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("pv_sub_naive");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 8)) {
            assertThat(new Fixture(store).race(true)).as("double outcomes of the naive mode").isEqualTo(SITES);
        }
    }

    private static void eitherOrderHasOneOutcome(Store store) throws Exception {
        Fixture f = new Fixture(store);
        long first = f.site(Duration.ofMillis(1));
        long second = f.site(Duration.ofMillis(1));
        long running = f.site(Duration.ofHours(1));
        Thread.sleep(20);
        // subscription first: the expiry finds nothing to do
        assertThat(f.subscribe(first)).isTrue();
        assertThat(f.expire(first)).isFalse();
        assertThat(f.subscribe(first)).as("a repeat changes nothing").isFalse();
        assertThat(f.get(first).subscription()).isEqualTo(Subscription.SUBSCRIBED);
        assertThat(f.get(first).state()).isEqualTo(SiteState.PROVISIONING);
        // expiry first: the subscription is refused, the site is on its way down
        assertThat(f.expire(second)).isTrue();
        assertThat(f.subscribe(second)).isFalse();
        assertThat(f.expire(second)).as("a repeat changes nothing").isFalse();
        assertThat(f.get(second).subscription()).isEqualTo(Subscription.EXPIRED);
        assertThat(f.get(second).state()).isEqualTo(SiteState.DELETING);
        // before its deadline a trial is not expired, and is still subscribable
        assertThat(f.expire(running)).isFalse();
        List<Long> due = f.store.withConnection(c -> f.sites.dueForExpiry(c, null, 10));
        assertThat(due).doesNotContain(running, first, second);
        assertThat(f.subscribe(running)).isTrue();
    }

    private static final class Fixture {
        final Store store;
        final SiteStore sites;
        final long tenant;
        final long lead;
        final List<Long> ids = new ArrayList<>();

        Fixture(Store store) {
            Provisioning.migrate(store);
            this.store = store;
            this.sites = new SiteStore(store);
            this.tenant = new Tenants(store).create("race").tenant().id();
            this.lead = new Leads(store).create(tenant, "Ada", "ada@example.com").id();
        }

        long site(Duration trial) {
            return store.inTransaction(c -> sites.insert(c, tenant, lead, "race-" + System.nanoTime(), null, null, null,
                    trial));
        }

        Site get(long id) {
            return store.withConnection(c -> sites.get(c, id)).orElseThrow();
        }

        boolean subscribe(long id) {
            return store.inTransaction(c -> sites.subscribe(c, tenant, id, null));
        }

        boolean expire(long id) {
            return store.inTransaction(c -> sites.expire(c, id, null));
        }

        /**
         * Per site, one thread subscribes while another expires, released together; returns on how
         * many sites both reported winning. {@code naive}: each side reads the subscription, waits for
         * the other to have read it too, then writes without a condition.
         */
        int race(boolean naive) throws Exception {
            for (int i = 0; i < SITES; i++) {
                ids.add(site(Duration.ofMillis(1)));
            }
            Thread.sleep(20);
            int both = 0;
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                for (long id : ids) {
                    CyclicBarrier start = new CyclicBarrier(2);
                    CyclicBarrier read = new CyclicBarrier(2);
                    Future<Boolean> sub = pool.submit(() -> {
                        start.await();
                        return naive ? naiveWrite(id, read, "UPDATE pv_site SET subscription = 'subscribed' WHERE id = ?")
                                : subscribe(id);
                    });
                    Future<Boolean> exp = pool.submit(() -> {
                        start.await();
                        return naive ? naiveWrite(id, read,
                                "UPDATE pv_site SET subscription = 'expired', state = 'deleting' WHERE id = ?") : expire(id);
                    });
                    boolean s = sub.get();
                    boolean e = exp.get();
                    both += s && e ? 1 : 0;
                    if (!naive) {
                        assertThat(s || e).as("site %d: one side must win", id).isTrue();
                        Site site = get(id);
                        assertThat(site.subscription()).isEqualTo(s ? Subscription.SUBSCRIBED : Subscription.EXPIRED);
                    }
                }
            } finally {
                pool.shutdownNow();
            }
            return both;
        }

        private boolean naiveWrite(long id, CyclicBarrier read, String update) throws Exception {
            boolean trial = get(id).subscription() == Subscription.TRIAL;
            read.await();
            if (!trial) {
                return false;
            }
            return store.withConnection(c -> {
                try (var ps = c.prepareStatement(update)) {
                    ps.setLong(1, id);
                    return ps.executeUpdate() == 1;
                }
            });
        }

        void assertEverySiteDecidedOnce() {
            for (long id : ids) {
                Site site = get(id);
                if (site.subscription() == Subscription.SUBSCRIBED) {
                    assertThat(site.state()).isEqualTo(SiteState.PROVISIONING);
                    assertThat(site.subscribedAt()).isNotNull();
                } else {
                    assertThat(site.subscription()).isEqualTo(Subscription.EXPIRED);
                    assertThat(site.state()).isEqualTo(SiteState.DELETING);
                }
            }
        }
    }
}
