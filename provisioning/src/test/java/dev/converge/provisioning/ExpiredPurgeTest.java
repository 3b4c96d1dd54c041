package dev.converge.provisioning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.provisioning.approval.Approval;
import dev.converge.provisioning.approval.ApprovalAction;
import dev.converge.provisioning.approval.Approvals;
import dev.converge.provisioning.idempotency.ClaimOutcome;
import dev.converge.provisioning.idempotency.IdempotencyKey;
import dev.converge.provisioning.idempotency.IdempotencyStore;
import dev.converge.recurring.MissedSlots;
import dev.converge.recurring.RecurringView;
import dev.converge.store.Store;
import dev.converge.testkit.ScratchDatabase;
import dev.converge.testkit.TestStores;
import dev.converge.time.EngineClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The recurring job pv.purge-expired deletes expired idempotency keys and approvals, and nothing else, on H2 and PostgreSQL. */
class ExpiredPurgeTest {

    @Test
    void itDeletesWhatExpiredOnH2() {
        try (Store store = TestStores.h2(true, EngineClock.database())) {
            purgesWhatExpired(store);
        }
    }

    @Test
    void itDeletesWhatExpiredOnPostgres() {
        try (ScratchDatabase db = ScratchDatabase.create("pv_purge");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 4)) {
            purgesWhatExpired(store);
        }
    }

    private static void purgesWhatExpired(Store store) {
        Provisioning.migrate(store);
        IdempotencyStore keys = new IdempotencyStore(store);
        assertThat(keys.claim(1, new IdempotencyKey("expiring"), "fp", Duration.ofMillis(1), Duration.ofMinutes(1)))
                .isInstanceOf(ClaimOutcome.Claimed.class);
        assertThat(keys.claim(1, new IdempotencyKey("valid"), "fp", Duration.ofHours(1), Duration.ofMinutes(1)))
                .isInstanceOf(ClaimOutcome.Claimed.class);
        Approval expiring = new Approvals(store, Duration.ofMillis(1)).mint(1, 10, ApprovalAction.DELETE_SITE);
        Approval valid = new Approvals(store).mint(1, 10, ApprovalAction.DELETE_SITE);

        try (Converge engine = Converge.builder(store).queue("default", 1).queues(q -> q.poll(Duration.ofMillis(100)))
                .handle(ExpiredPurge.TYPE, new ExpiredPurge(store)::run)
                .recurring(ExpiredPurge.recurring(Duration.ofSeconds(1))).build().start()) {
            RecurringView view = engine.recurring().view(ExpiredPurge.NAME).orElseThrow();
            assertThat(view.missedSlots()).isEqualTo(MissedSlots.SKIP);
            assertThat(view.schedule()).isEqualTo("every PT1S");

            await().atMost(Duration.ofSeconds(20)).until(() -> count(store, "SELECT COUNT(*) FROM cv_job "
                    + "WHERE kind = 'pv.purge-expired' AND state = 'succeeded'") > 0);
        }
        assertThat(count(store, "SELECT COUNT(*) FROM pv_idempotency WHERE idem_key = 'expiring'")).isZero();
        assertThat(count(store, "SELECT COUNT(*) FROM pv_idempotency WHERE idem_key = 'valid'")).isEqualTo(1);
        assertThat(count(store, "SELECT COUNT(*) FROM pv_approval WHERE id = " + expiring.id())).isZero();
        assertThat(count(store, "SELECT COUNT(*) FROM pv_approval WHERE id = " + valid.id())).isEqualTo(1);
    }

    private static long count(Store store, String sql) {
        return store.withConnection(c -> {
            try (var ps = c.prepareStatement(sql); var rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }
}
