package dev.converge.queue.internal;

/**
 * Told what the engine does beyond deliveries (ledger, leaf calls, flows, compensation, reaper,
 * watchdog), for metrics and traces. Every method has a no-op default, and an engine without a
 * meter registry or tracing has no observer at all, so the calls cost next to nothing. Called on
 * hot paths: implementations must be cheap and must not throw (a throw is logged and ignored).
 * Outcomes are short lower-case words, listed in docs/operations.md.
 */
public interface EngineObserver {
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
