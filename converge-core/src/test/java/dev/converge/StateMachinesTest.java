package dev.converge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.batch.BatchState;
import dev.converge.chain.ChainState;
import dev.converge.flow.FlowState;
import dev.converge.ledger.LedgerState;
import dev.converge.queue.JobState;
import dev.converge.token.TokenState;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The allowed-transitions tables are exactly those documented in docs/state-machines.md. */
class StateMachinesTest {

    @Test
    void jobs() {
        assertThat(JobState.transitions()).isEqualTo(Map.of(
                JobState.AVAILABLE, EnumSet.of(JobState.RUNNING, JobState.CANCELLED),
                JobState.RUNNING, EnumSet.of(JobState.SUCCEEDED, JobState.FAILED, JobState.CANCELLED, JobState.AVAILABLE),
                JobState.SUCCEEDED, Set.of(), JobState.FAILED, Set.of(), JobState.CANCELLED, Set.of()));
    }

    @Test
    void batchesAndChains() {
        assertThat(BatchState.transitions().get(BatchState.RUNNING))
                .containsExactlyInAnyOrder(BatchState.SUCCEEDED, BatchState.FAILED, BatchState.CANCELLED);
        assertThat(BatchState.CANCELLED.canMoveTo(BatchState.SUCCEEDED)).isFalse();
        assertThat(ChainState.transitions().get(ChainState.RUNNING))
                .containsExactlyInAnyOrder(ChainState.SUCCEEDED, ChainState.FAILED, ChainState.CANCELLED);
        assertThat(ChainState.FAILED.canMoveTo(ChainState.RUNNING)).isFalse();
    }

    @Test
    void flowsReportOnlyAfterCompensating() {
        assertThat(FlowState.transitions()).isEqualTo(Map.of(
                FlowState.RUNNING, EnumSet.of(FlowState.SUCCEEDED, FlowState.COMPENSATING),
                FlowState.COMPENSATING, EnumSet.of(FlowState.FAILED, FlowState.NEEDS_ATTENTION),
                FlowState.SUCCEEDED, Set.of(), FlowState.FAILED, Set.of(), FlowState.NEEDS_ATTENTION, Set.of()));
        assertThat(FlowState.RUNNING.canMoveTo(FlowState.FAILED)).as("never report before compensating").isFalse();
    }

    @Test
    void ledgerEntriesAreNeverOptimistic() {
        assertThat(LedgerState.transitions()).isEqualTo(Map.of(
                LedgerState.CLAIMED, EnumSet.of(LedgerState.CONFIRMED, LedgerState.UNCERTAIN, LedgerState.RELEASED,
                        LedgerState.DELETING),
                LedgerState.UNCERTAIN, EnumSet.of(LedgerState.CONFIRMED, LedgerState.RELEASED, LedgerState.DELETING),
                LedgerState.CONFIRMED, EnumSet.of(LedgerState.DELETING),
                LedgerState.DELETING, EnumSet.of(LedgerState.DELETED, LedgerState.RELEASED),
                LedgerState.DELETED, EnumSet.of(LedgerState.CLAIMED),
                LedgerState.RELEASED, EnumSet.of(LedgerState.CLAIMED)));
        assertThat(LedgerState.CLAIMED.unresolved()).isTrue();
        assertThat(LedgerState.CONFIRMED.unresolved()).isFalse();
    }

    @Test
    void tokensHaveOneOwnerForTheirWholeLife() {
        assertThat(TokenState.transitions()).isEqualTo(Map.of(
                TokenState.AVAILABLE, EnumSet.of(TokenState.CHECKED_OUT),
                TokenState.CHECKED_OUT, EnumSet.of(TokenState.SPENT, TokenState.AVAILABLE),
                TokenState.SPENT, Set.of()));
    }
}
