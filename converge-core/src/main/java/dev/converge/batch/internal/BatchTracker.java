package dev.converge.batch.internal;

import dev.converge.batch.BatchState;
import dev.converge.batch.internal.BatchStore.BatchRow;
import dev.converge.queue.JobState;
import dev.converge.queue.internal.NewJob;
import dev.converge.queue.internal.FinishContext;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Keeps batches' books as their jobs finish, inside each finishing job's transaction: counts,
 * fail-fast cancellation, and the {@code then}/{@code catch}/{@code finally} callbacks, each
 * enqueued once (a conditional flag flip plus a unique job key), however often the triggering
 * jobs were delivered and on however many nodes they completed at once.
 */
public final class BatchTracker {
    private final BatchStore store;

    public BatchTracker(BatchStore store) {
        this.store = store;
    }

    public BatchStore store() {
        return store;
    }

    /** Inserts the batch and its jobs; returns the batch id. */
    public long dispatch(FinishContext tx, BatchSpec spec, Long chainId, Integer chainPos, Long flowId)
            throws SQLException {
        return dispatch(tx, spec, chainId, chainPos, flowId, null);
    }

    /**
     * Inserts the batch and its jobs, due since {@code dueSince} when not null (the batch continues
     * work begun then; see {@link NewJob#dueSince}); returns the batch id.
     */
    public long dispatch(FinishContext tx, BatchSpec spec, Long chainId, Integer chainPos, Long flowId,
            Instant dueSince) throws SQLException {
        long id = store.insert(tx.connection(), spec.name(), spec.allowFailures(), spec.jobs().size(), spec.thenJob(),
                spec.catchJob(), spec.finallyJob(), chainId, chainPos, flowId, tx.now());
        List<NewJob> rows = new ArrayList<>(spec.jobs().size());
        for (JobSpec j : spec.jobs()) {
            rows.add(j.toNewJob().inBatch(id).inFlow(flowId).dueSince(dueSince));
        }
        tx.jobs().insertMany(tx.connection(), rows, tx.now());
        for (NewJob r : rows) {
            tx.wake(r.queue());
        }
        return id;
    }

    /** A job of the batch reached a terminal state (exactly once per job); returns what it means for the batch's chain. */
    public LinkEnd jobFinished(FinishContext tx, long batchId, JobState state, String error) throws SQLException {
        boolean failed = state == JobState.FAILED;
        store.count(tx.connection(), batchId, state == JobState.SUCCEEDED ? 1 : 0, failed ? 1 : 0,
                state == JobState.CANCELLED ? 1 : 0);
        BatchRow row = store.get(tx.connection(), batchId);
        LinkEnd cancelled = LinkEnd.NONE;
        if (failed) {
            if (row.catchJob() != null && store.fireCatch(tx.connection(), batchId)) {
                tx.enqueue(row.catchJob().toNewJob().withUniqueKey("batch:" + batchId + ":catch"));
            }
            if (!row.progress().allowFailures()) {
                cancelled = cancel(tx, batchId, "batch cancelled: a job failed for good: " + firstLine(error));
                row = store.get(tx.connection(), batchId);
            }
        }
        LinkEnd finished = maybeFinish(tx, row);
        return cancelled != LinkEnd.NONE ? cancelled : finished;
    }

    /**
     * Cancels a running batch: jobs not yet started are cancelled now, running ones see it at
     * their next {@code cancelled()} check. Returns, once, the failed link for its chain; nothing if
     * it was not running (or is no link).
     */
    public LinkEnd cancel(FinishContext tx, long batchId, String reason) throws SQLException {
        if (!store.cancel(tx.connection(), batchId, tx.now())) {
            return LinkEnd.NONE;
        }
        int n = tx.jobs().cancelAvailableInBatch(tx.connection(), batchId, reason, tx.now());
        if (n > 0) {
            store.count(tx.connection(), batchId, 0, 0, n);
        }
        BatchRow row = store.get(tx.connection(), batchId);
        maybeFinish(tx, row); // it is cancelled now: this ends it, and tells no chain
        return row.progress().chainId() == null ? LinkEnd.NONE
                : new LinkEnd.Failed(row.progress().chainId(), row.progress().chainPos(), reason);
    }

    /**
     * Cancels the jobs of an already cancelled batch that are available again: they were running
     * when it was cancelled and then came back (lease expired and rescued, or a retry with backoff).
     * Its chain ended when it was cancelled, so there is nothing to tell it.
     */
    public void cancelStragglers(FinishContext tx, long batchId, String reason) throws SQLException {
        int n = tx.jobs().cancelAvailableInBatch(tx.connection(), batchId, reason, tx.now());
        if (n > 0) {
            store.count(tx.connection(), batchId, 0, 0, n);
            maybeFinish(tx, store.get(tx.connection(), batchId));
        }
    }

    private LinkEnd maybeFinish(FinishContext tx, BatchRow row) throws SQLException {
        var p = row.progress();
        if (p.pending() > 0 || p.finishedAt() != null) {
            return LinkEnd.NONE;
        }
        boolean clean = p.failed() == 0 && p.cancelled() == 0;
        BatchState ifRunning = clean ? BatchState.SUCCEEDED : BatchState.FAILED;
        if (!store.finish(tx.connection(), p.id(), ifRunning, tx.now())) {
            return LinkEnd.NONE;
        }
        boolean wasRunning = p.state() == BatchState.RUNNING;
        if (wasRunning && clean && row.thenJob() != null && store.fireThen(tx.connection(), p.id())) {
            tx.enqueue(row.thenJob().toNewJob().withUniqueKey("batch:" + p.id() + ":then"));
        }
        if (row.finallyJob() != null && store.fireFinally(tx.connection(), p.id())) {
            tx.enqueue(row.finallyJob().toNewJob().withUniqueKey("batch:" + p.id() + ":finally"));
        }
        if (!wasRunning || p.chainId() == null) {
            return LinkEnd.NONE;
        }
        return clean || p.allowFailures() ? new LinkEnd.Succeeded(p.chainId(), p.chainPos())
                : new LinkEnd.Failed(p.chainId(), p.chainPos(), "batch '" + p.name() + "' ended with "
                        + p.failed() + " failed and " + p.cancelled() + " cancelled job(s)");
    }

    static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
