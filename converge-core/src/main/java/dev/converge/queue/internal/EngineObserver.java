package dev.converge.queue.internal;

/**
 * The engine's one listener: told what this node's deliveries do (enqueued, started, running
 * around the handler, ran, settled, rescued) and what the engine does beyond them (ledger, leaf calls, flows, compensation, reaper,
 * watchdog), for the logging context, metrics, traces and the queue history. Every method has a no-op default; all of an
 * engine's listeners are called as one through {@link EngineObservers}. Called on hot paths:
 * implementations must be cheap and must not throw (a throw is logged and ignored). Outcomes are
 * short lower-case words, listed in docs/operations.md.
 */
public interface EngineObserver {
    /** A job was enqueued (not a duplicate of a unique key) through this engine. */
    default void enqueued(String queue, String kind) {
    }

    /** A delivery's handler starts, {@code waitedMillis} after the job became due. */
    default void started(LeasedJob job, long waitedMillis) {
    }

    /**
     * A delivery's handler is about to run on this thread: what the listener sets up around it (the
     * logging context, a current span) it ends in the returned activity, on the same thread, after
     * the handler returned ({@code ok}) or threw ({@code error}, with what it threw).
     */
    default Activity running(LeasedJob job) {
        return Activity.NONE;
    }

    /** A delivery's handler returned (or threw) after {@code nanos}. */
    default void ran(LeasedJob job, long nanos) {
    }

    /**
     * A delivery's outcome was recorded ({@code succeeded}, {@code failed}, {@code cancelled},
     * {@code retried}) or refused because its lease had moved on ({@code lease_lost}).
     */
    default void settled(LeasedJob job, String outcome) {
    }

    /** This node put back or failed {@code n} deliveries whose leases had expired. */
    default void rescued(int n) {
    }

    /** Something that takes time (a leaf call, an {@code ensure()}, a flow's start): ended once, on the thread that began it. */
    interface Activity {
        Activity NONE = (outcome, error) -> {
        };

        /** {@code outcome} is a short word ({@code ok}, {@code created}, ...); {@code error} what was thrown, or null. */
        void end(String outcome, Throwable error);
    }

    /** An {@code ensure()} of a resource of {@code kind} begins; ended with its ledger outcome. */
    default Activity ensure(String kind, String safety) {
        return Activity.NONE;
    }

    /** A call to a leaf begins: {@code operation} is create, find, delete or call; ended with its outcome. */
    default Activity leafCall(String type, String operation, String safety) {
        return Activity.NONE;
    }

    /** A flow of {@code kind} is being started (its first jobs are enqueued inside); ended {@code started} or {@code existing}. */
    default Activity flowStart(String kind) {
        return Activity.NONE;
    }

    /** A ledger entry's teardown ended: deleted, not_created, not_ours, unverifiable. */
    default void tornDown(String kind, String outcome) {
    }

    /** A reaper pass scheduled {@code n} stale entries for resolution. */
    default void reaped(int n) {
    }

    /** The reaper's resolution of a stale entry: confirmed, resent, released, torn_down, left. */
    default void resolved(String kind, String outcome) {
    }

    /** A flow left {@code running} or {@code compensating} for {@code state} (compensating, succeeded, failed, needs_attention). */
    default void flowMoved(String kind, String state) {
    }

    /** One compensation of a failed flow ran: done, retried, gave_up. */
    default void compensationRan(String type, String outcome) {
    }

    /** The watchdog acted on {@code n} flows: deadline_failed, compensation_overdue. */
    default void watchdog(String action, int n) {
    }
}
