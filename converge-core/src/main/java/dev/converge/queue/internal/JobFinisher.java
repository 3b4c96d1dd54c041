package dev.converge.queue.internal;

import dev.converge.queue.JobState;
import dev.converge.queue.internal.Decision.Finish;
import dev.converge.queue.internal.Decision.Retry;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns delivery outcomes into fenced state changes, in the caller's transaction, and lets the
 * batch, chain and flow hooks react to jobs that finished for good. The single place where a
 * job's fate after a delivery is decided.
 */
public final class JobFinisher {
    private final List<FinishHook> hooks;
    private final String nodeId;

    /** {@code nodeId}: this node, recorded with each attempt that failed here. */
    public JobFinisher(List<FinishHook> hooks, String nodeId) {
        this.hooks = List.copyOf(hooks);
        this.nodeId = nodeId;
    }

    private volatile boolean handOffTraces;

    /** With tracing on, the jobs hooks insert continue the trace of the job that finished. */
    void handOffTraces(boolean on) {
        this.handOffTraces = on;
    }

    /** Applies the completions; {@code result[i]} is false where the delivery had lost its lease. */
    public boolean[] apply(FinishContext tx, List<Completion> items) throws SQLException {
        Decision[] decisions = new Decision[items.size()];
        for (int i = 0; i < decisions.length; i++) {
            decisions[i] = decide(items.get(i));
        }
        return apply(tx, items, decisions);
    }

    /** As {@link #apply(FinishContext, List)}, with {@code decisions[i] = decide(items.get(i))} already made. */
    boolean[] apply(FinishContext tx, List<Completion> items, Decision[] decisions) throws SQLException {
        JobStore jobs = tx.jobs();
        waitByFailures(tx, items, decisions);
        List<Finish> finishes = new ArrayList<>();
        List<Integer> finishIdx = new ArrayList<>();
        List<Retry> retries = new ArrayList<>();
        List<Integer> retryIdx = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            if (decisions[i] instanceof Finish f) {
                finishes.add(f);
                finishIdx.add(i);
            } else if (decisions[i] instanceof Retry r) {
                retries.add(r);
                retryIdx.add(i);
            }
        }
        boolean[] applied = new boolean[items.size()];
        boolean[] finished = jobs.finish(tx.connection(), finishes, tx.now());
        boolean[] retried = jobs.retry(tx.connection(), retries, tx.now());
        for (int k = 0; k < retried.length; k++) {
            applied[retryIdx.get(k)] = retried[k];
            Retry r = retries.get(k);
            if (retried[k] && !r.refundAttempt()) {
                Completion item = items.get(retryIdx.get(k));
                if (item.outcome() instanceof Outcome.Released) {
                    // an attempt spent without a failure: recorded too, so that the history has no gaps
                    jobs.recordAttempt(tx.connection(), item.job(), nodeId, "released",
                            "released by its handler: runs again in " + r.delayMs() + " ms", tx.now());
                } else if (r.error() != null) {
                    jobs.recordAttempt(tx.connection(), item.job(), nodeId,
                            item.outcome() instanceof Outcome.Expired ? "expired" : "retried", r.error(), tx.now());
                }
            }
            if (retried[k] && retries.get(k).delayMs() > 0) {
                tx.wakeLater(items.get(retryIdx.get(k)).job().queue(), retries.get(k).delayMs());
            }
        }
        for (int k = 0; k < finished.length; k++) {
            int i = finishIdx.get(k);
            applied[i] = finished[k];
            LeasedJob job = items.get(i).job();
            if (finished[k] && finishes.get(k).state() == JobState.FAILED) {
                jobs.recordAttempt(tx.connection(), job, nodeId, "failed", finishes.get(k).error(), tx.now());
            }
            if (finished[k] && belongsToSomething(job)) {
                String previous = handOffTraces
                        ? TraceHandoff.handOff(jobs.traceParentOf(tx.connection(), job.id()).orElse(null)) : null;
                try {
                    for (FinishHook hook : hooks) {
                        hook.onFinished(tx, job, finishes.get(k).state(), finishes.get(k).error());
                    }
                } finally {
                    if (handOffTraces) {
                        TraceHandoff.handOff(previous);
                    }
                }
            }
        }
        return applied;
    }

    /**
     * Lets the batch, chain and flow hooks react to a job a person ended without a delivery (a
     * waiting job cancelled by hand), in the transaction that ended it: its chain or batch moves
     * on, and a flow whose chain can make no more progress ends, as after any cancelled link.
     */
    public void endedByHand(FinishContext tx, LeasedJob job, JobState state, String reason) throws SQLException {
        if (belongsToSomething(job)) {
            for (FinishHook hook : hooks) {
                hook.onFinished(tx, job, state, reason);
            }
        }
    }

    /**
     * The wait before a retry counts the attempts that failed, not those that ended with their lease
     * expired (the node died or stalled: not the job's doing, and already retried at once) nor those its
     * handler released (asked to run later, as when a leaf throttles). Without
     * this, a job whose workers were killed twice waited four times the first backoff after its
     * first error. Only a failed attempt after the first can have an expired one before it, so the
     * read of the job's attempts is made for those alone; {@code decisions[i]} is replaced in place.
     */
    private static void waitByFailures(FinishContext tx, List<Completion> items, Decision[] decisions)
            throws SQLException {
        for (int i = 0; i < items.size(); i++) {
            Completion item = items.get(i);
            if (decisions[i] instanceof Retry r && item.outcome() instanceof Outcome.Failed && item.job().attempt() > 1) {
                int notFailed = tx.jobs().attemptsNotFailed(tx.connection(), item.job().id());
                if (notFailed > 0) {
                    long delay = item.policy().delayAfter(Math.max(1, item.job().attempt() - notFailed)).toMillis();
                    decisions[i] = new Retry(r.lease(), delay, r.error(), r.refundAttempt());
                }
            }
        }
    }

    private static boolean belongsToSomething(LeasedJob job) {
        return job.batchId() != null || job.chainId() != null || job.flowId() != null;
    }

    /** What an outcome means for the row: a terminal {@link Finish} or a {@link Retry}. */
    static Decision decide(Completion item) {
        LeasedJob job = item.job();
        Outcome outcome = item.outcome();
        if (outcome instanceof Outcome.Succeeded) {
            return new Finish(job.lease(), JobState.SUCCEEDED, null);
        }
        if (outcome instanceof Outcome.Cancelled c) {
            return new Finish(job.lease(), JobState.CANCELLED, c.reason());
        }
        if (outcome instanceof Outcome.Released r) {
            if (r.refundAttempt() || job.attemptsLeft()) {
                return new Retry(job.lease(), r.delayMs(), null, r.refundAttempt());
            }
            return new Finish(job.lease(), JobState.FAILED,
                    "released on its final attempt (" + job.attempt() + " of " + job.maxAttempts() + ")");
        }
        if (outcome instanceof Outcome.Expired e) {
            return job.attemptsLeft()
                    ? new Retry(job.lease(), 0, e.why(), false)
                    : new Finish(job.lease(), JobState.FAILED, e.why() + "; that was its last attempt");
        }
        Outcome.Failed f = (Outcome.Failed) outcome;
        if (f.retryable() && job.attemptsLeft()) {
            return new Retry(job.lease(), item.policy().delayAfter(job.attempt()).toMillis(), f.error(), false);
        }
        return new Finish(job.lease(), JobState.FAILED, f.error());
    }
}
