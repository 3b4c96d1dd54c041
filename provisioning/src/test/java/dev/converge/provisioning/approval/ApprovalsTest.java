package dev.converge.provisioning.approval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.tenant.Tenants;
import dev.converge.store.Store;
import dev.converge.testkit.ScratchDatabase;
import dev.converge.testkit.SettableClock;
import dev.converge.testkit.TestStores;
import dev.converge.time.EngineClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** One-time approvals: used once, by one caller, before they expire; only their hash is stored. */
class ApprovalsTest {

    private static Store h2(EngineClock clock) {
        Store store = TestStores.h2(true, clock);
        Provisioning.migrate(store);
        return store;
    }

    @Test
    void anApprovalIsGrantedOnceForItsTenantSiteAndActionOnly() {
        try (Store store = h2(EngineClock.database())) {
            Approvals approvals = new Approvals(store);
            Approval a = approvals.mint(1, 10, ApprovalAction.DELETE_SITE);
            assertThat(a.token()).startsWith("apv_").hasSizeGreaterThan(40);
            assertThat(a.toString()).doesNotContain(a.token());

            assertThat(approvals.consume(2, 10, ApprovalAction.DELETE_SITE, a.token()))
                    .as("another tenant").isEqualTo(new Consumption.Refused(Consumption.Reason.UNKNOWN));
            assertThat(approvals.consume(1, 11, ApprovalAction.DELETE_SITE, a.token()))
                    .as("another site").isEqualTo(new Consumption.Refused(Consumption.Reason.UNKNOWN));
            assertThat(approvals.consume(1, 10, ApprovalAction.DELETE_SITE, "apv_guess"))
                    .isEqualTo(new Consumption.Refused(Consumption.Reason.UNKNOWN));
            assertThat(approvals.consume(1, 10, ApprovalAction.DELETE_SITE, null))
                    .isEqualTo(new Consumption.Refused(Consumption.Reason.MISSING));

            assertThat(approvals.consume(1, 10, ApprovalAction.DELETE_SITE, a.token()))
                    .isEqualTo(new Consumption.Granted(a.id()));
            assertThat(approvals.consume(1, 10, ApprovalAction.DELETE_SITE, a.token()))
                    .isEqualTo(new Consumption.Refused(Consumption.Reason.USED));
        }
    }

    @Test
    void anApprovalGivenBackIsUsableOnceMore() {
        try (Store store = h2(EngineClock.database())) {
            Approvals approvals = new Approvals(store);
            Approval a = approvals.mint(1, 10, ApprovalAction.DELETE_SITE);
            Consumption first = approvals.consume(1, 10, ApprovalAction.DELETE_SITE, a.token());
            approvals.giveBack(((Consumption.Granted) first).approvalId());
            assertThat(approvals.consume(1, 10, ApprovalAction.DELETE_SITE, a.token())).isInstanceOf(Consumption.Granted.class);
            assertThat(approvals.consume(1, 10, ApprovalAction.DELETE_SITE, a.token()))
                    .isEqualTo(new Consumption.Refused(Consumption.Reason.USED));
        }
    }

    @Test
    void anApprovalExpiresByTheStoreClock() {
        SettableClock clock = new SettableClock(java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
        try (Store store = h2(clock)) {
            Approvals approvals = new Approvals(store, Duration.ofMinutes(15));
            Approval a = approvals.mint(1, 10, ApprovalAction.DELETE_SITE);
            assertThat(a.expiresAt()).isEqualTo(clock.sqlNow().plus(Duration.ofMinutes(15)));
            clock.advance(Duration.ofMinutes(15));
            assertThat(approvals.consume(1, 10, ApprovalAction.DELETE_SITE, a.token()))
                    .isEqualTo(new Consumption.Refused(Consumption.Reason.EXPIRED));
            assertThatThrownBy(() -> new Approvals(store, Duration.ofDays(2))).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void onlyTheTokensHashIsStored() {
        try (Store store = h2(EngineClock.database())) {
            Approval a = new Approvals(store).mint(1, 10, ApprovalAction.DELETE_SITE);
            List<String> row = store.withConnection(c -> {
                try (var st = c.createStatement(); var rs = st.executeQuery("SELECT * FROM pv_approval")) {
                    List<String> values = new ArrayList<>();
                    rs.next();
                    for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                        values.add(String.valueOf(rs.getObject(i)));
                    }
                    return values;
                }
            });
            assertThat(row).contains(dev.converge.provisioning.access.Credentials.hash(a.token()), "delete_site").noneMatch(v -> v.contains(a.token()));
        }
    }

    @Test
    void racingCallersGetOneGrantOnH2() throws Exception {
        try (Store store = h2(EngineClock.database())) {
            assertOneGrant(new Approvals(store));
        }
    }

    @Test
    void racingCallersGetOneGrantOnPostgres() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_approval");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 40)) {
            Provisioning.migrate(store);
            assertOneGrant(new Approvals(store));
        }
    }

    private static void assertOneGrant(Approvals approvals) throws Exception {
        for (int round = 0; round < 5; round++) {
            Approval a = approvals.mint(1, 10 + round, ApprovalAction.DELETE_SITE);
            int callers = 32;
            ExecutorService pool = Executors.newFixedThreadPool(callers);
            try {
                CountDownLatch go = new CountDownLatch(1);
                List<Future<Consumption>> results = new ArrayList<>();
                for (int i = 0; i < callers; i++) {
                    results.add(pool.submit(() -> {
                        go.await();
                        return approvals.consume(1, a.siteId(), ApprovalAction.DELETE_SITE, a.token());
                    }));
                }
                go.countDown();
                List<Consumption> all = new ArrayList<>();
                for (Future<Consumption> f : results) {
                    all.add(f.get());
                }
                assertThat(all).filteredOn(Consumption.Granted.class::isInstance).as("round " + round).hasSize(1);
                assertThat(all).filteredOn(c -> c.equals(new Consumption.Refused(Consumption.Reason.USED)))
                        .hasSize(callers - 1);
            } finally {
                pool.shutdownNow();
            }
        }
    }
}
