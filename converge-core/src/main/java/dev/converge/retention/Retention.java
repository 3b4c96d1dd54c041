package dev.converge.retention;

/**
 * Deletes finished work older than the {@link RetentionPolicy}'s ages, in small batches (one short
 * transaction each), so the engine's tables stay bounded however long it runs. Run by the one node
 * holding the retention claim; safe to overlap (every delete re-reads what it deletes).
 *
 * <p>What is never deleted: anything not finished; a job, batch or chain of a batch, chain or flow
 * still running; a job that owns an unresolved ledger entry or a checked-out token; a flow that
 * needs attention, that still has jobs, batches or chains, or that an unresolved ledger entry
 * points at; any ledger entry. Members of a flow (jobs, batches, chains) are kept as long as their
 * flow is, and go with it once it is {@code flows} old. Deleting an old job frees its unique key.
 */
public interface Retention {

    /** Tells {@code listener} what each round deleted (metrics). */
    void onRound(java.util.function.Consumer<RetentionReport> listener);

    /** The ages and batch sizes this engine deletes by. */
    RetentionPolicy policy();

    /**
     * One round: jobs first, then the batches and chains they left empty, then flows with nothing
     * left in them. Each kind runs at most {@code maxBatchesPerRound} batches, each its own
     * transaction.
     */
    RetentionReport round();
}
