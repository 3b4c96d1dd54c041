package dev.converge.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.store.internal.Dialects;
import dev.converge.queue.internal.Decision;
import dev.converge.flow.FlowState;
import dev.converge.flow.Harness;
import dev.converge.flow.internal.FlowStore;
import dev.converge.ledger.internal.LedgerStore;
import dev.converge.ledger.internal.LedgerStore.CompensationOf;
import dev.converge.ledger.internal.LedgerStore.FlowClaim;
import dev.converge.lease.JobLease;
import dev.converge.queue.internal.JobStore;
import dev.converge.queue.internal.LeasedJob;
import dev.converge.queue.internal.NewJob;
import dev.converge.store.Store;
import dev.converge.fixture.SettableClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL's one-statement claim in a flow, on its own: it writes the entry and its compensation only
 * for the delivery that holds the lease, only while the flow accepts compensations, and only for a key
 * nobody holds; otherwise it writes neither, and says which (the flow's state comes back either way).
 */
class ClaimInFlowStatementTest {
    static final CompensationOf TEARDOWN = new CompensationOf("teardown", "{\"entryId\":", "}");

    @Test
    void theClaimAndItsCompensationAreWrittenTogetherOrNotAtAll() {
        SettableClock clock = SettableClock.atNow();
        try (Harness h = new Harness("postgres", clock)) {
            Store store = h.store();
            JobStore jobs = new JobStore(Dialects.forUrl(store.config().url(), store.config().schema()));
            LedgerStore ledger = new LedgerStore(Dialects.forUrl(store.config().url(), store.config().schema()));
            FlowStore flows = new FlowStore(Dialects.forUrl(store.config().url(), store.config().schema()));
            assertThat(ledger.claimsInFlowAtOnce()).isTrue();
            long flow = store.withConnection(c -> flows.insert(c, "f", "s", null, null, null, clock.sqlNow())).orElseThrow();
            store.withConnection(c -> jobs.insert(c, NewJob.simple("default", "step", "{}", 3), clock.sqlNow()));
            JobLease first = lease(store, jobs, clock, "node-a");

            // a fresh key, the lease held, the flow running: the entry and the compensation naming it
            FlowClaim won = store.withConnection(c -> ledger.insertClaimInFlow(c, "repo", "k1", flow, null, "s",
                    RepetitionSafety.UNSAFE, null, TEARDOWN, first, clock.sqlNow()));
            LedgerEntry e = won.claimed().orElseThrow();
            assertThat(won.flowState()).isEqualTo(FlowState.RUNNING);
            assertThat(won.calledOff()).as("a running flow, no batch").isFalse();
            assertThat(e.state()).isEqualTo(LedgerState.CLAIMED);
            assertThat(e.flowId()).isEqualTo(flow);
            assertThat(e.ownerEpoch()).isEqualTo(first.epoch());
            assertThat(compensations(store, flows, flow)).containsExactly("{\"entryId\":" + e.id() + "}");

            // the key taken: nothing written, the flow still running (the caller reads the entry)
            FlowClaim taken = store.withConnection(c -> ledger.insertClaimInFlow(c, "repo", "k1", flow, null, "s",
                    RepetitionSafety.UNSAFE, null, TEARDOWN, first, clock.sqlNow()));
            assertThat(taken.claimed()).isEmpty();
            assertThat(taken.flowState()).isEqualTo(FlowState.RUNNING);
            assertThat(compensations(store, flows, flow)).hasSize(1);

            // the step's batch: running, the claim goes on; cancelled, the claim is written (the caller releases
            // it before any create) and says the step is called off, read in the same statement
            long running = batch(store, flow, "running");
            long cancelled = batch(store, flow, "cancelled");
            FlowClaim inRunning = store.withConnection(c -> ledger.insertClaimInFlow(c, "repo", "k5", flow, running, "s",
                    RepetitionSafety.UNSAFE, null, TEARDOWN, first, clock.sqlNow()));
            assertThat(inRunning.claimed()).isPresent();
            assertThat(inRunning.calledOff()).as("in a running batch").isFalse();
            FlowClaim inCancelled = store.withConnection(c -> ledger.insertClaimInFlow(c, "repo", "k6", flow, cancelled,
                    "s", RepetitionSafety.UNSAFE, null, TEARDOWN, first, clock.sqlNow()));
            assertThat(inCancelled.claimed()).isPresent();
            assertThat(inCancelled.calledOff()).as("in a cancelled batch").isTrue();
            assertThat(compensations(store, flows, flow)).hasSize(3);

            // the lease moved on to another delivery: the stale one writes nothing
            clock.advance(Duration.ofSeconds(5));
            store.inTransaction(c -> {
                List<LeasedJob> expired = jobs.expiredLeases(c, 10, clock.sqlNow());
                return jobs.retry(c, List.of(new Decision.Retry(expired.get(0).lease(), 0, "lease expired", false)),
                        clock.sqlNow());
            });
            JobLease second = lease(store, jobs, clock, "node-b");
            FlowClaim stale = store.withConnection(c -> ledger.insertClaimInFlow(c, "repo", "k2", flow, null, "s",
                    RepetitionSafety.UNSAFE, null, TEARDOWN, first, clock.sqlNow()));
            assertThat(stale.claimed()).as("a stale delivery's claim").isEmpty();
            assertThat(byKey(store, ledger, "k2")).isEmpty();
            assertThat(compensations(store, flows, flow)).hasSize(3);

            // the flow has ended: refused, nothing written, and the state says why
            store.withConnection(c -> flows.transition(c, flow, FlowState.RUNNING, FlowState.COMPENSATING, "x",
                    clock.sqlNow()) && flows.transition(c, flow, FlowState.COMPENSATING, FlowState.FAILED, "x",
                    clock.sqlNow()));
            FlowClaim ended = store.withConnection(c -> ledger.insertClaimInFlow(c, "repo", "k3", flow, null, "s",
                    RepetitionSafety.UNSAFE, null, TEARDOWN, second, clock.sqlNow()));
            assertThat(ended.claimed()).as("a claim in a flow that has ended").isEmpty();
            assertThat(ended.flowState()).isEqualTo(FlowState.FAILED);
            assertThat(ended.calledOff()).as("a flow that has ended").isTrue();
            assertThat(byKey(store, ledger, "k3")).isEmpty();
            assertThat(compensations(store, flows, flow)).hasSize(3);

            // no such flow
            FlowClaim missing = store.withConnection(c -> ledger.insertClaimInFlow(c, "repo", "k4", flow + 1000, null, "s",
                    RepetitionSafety.UNSAFE, null, TEARDOWN, second, clock.sqlNow()));
            assertThat(missing.claimed()).isEmpty();
            assertThat(missing.flowState()).isNull();
            assertThat(byKey(store, ledger, "k4")).isEmpty();
        }
    }

    private static long batch(Store store, long flow, String state) {
        return store.withConnection(c -> {
            try (java.sql.PreparedStatement ps = c.prepareStatement("INSERT INTO cv_batch (name, state, allow_failures, "
                    + "total, pending, flow_id, created_at) VALUES ('b', ?, false, 3, 3, ?, now()) RETURNING id")) {
                ps.setString(1, state);
                ps.setLong(2, flow);
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
    }

    private static java.util.Optional<LedgerEntry> byKey(Store store, LedgerStore ledger, String key) {
        return store.withConnection(c -> ledger.byKey(c, "repo", key));
    }

    private static JobLease lease(Store store, JobStore jobs, SettableClock clock, String node) {
        return store.withConnection(c -> jobs.lease(c, "default", 1, node, 1000, clock.sqlNow())).get(0).lease();
    }

    private static List<String> compensations(Store store, FlowStore flows, long flow) {
        return store.withConnection(c -> flows.compensations(c, flow)).stream()
                .map(dev.converge.flow.Compensation::payload).toList();
    }
}
