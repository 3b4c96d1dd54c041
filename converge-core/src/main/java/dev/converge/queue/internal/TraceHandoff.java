package dev.converge.queue.internal;

/**
 * The trace context a thread without a current span hands to the jobs it inserts: while the
 * completer runs the batch, chain and flow hooks of a finished job, that job's own trace context
 * (a W3C traceparent), so the next step of a chain or flow, a batch's callback and a failed
 * flow's compensation continue the trace the first job was enqueued in.
 */
public final class TraceHandoff {
    private static final ThreadLocal<String> INHERITED = new ThreadLocal<>();

    private TraceHandoff() {
    }

    /** The traceparent handed to this thread, or null. */
    public static String inherited() {
        return INHERITED.get();
    }

    /** Hands {@code traceParent} (null: none) to this thread; returns what was handed before, to put back. */
    static String handOff(String traceParent) {
        String previous = INHERITED.get();
        if (traceParent == null) {
            INHERITED.remove();
        } else {
            INHERITED.set(traceParent);
        }
        return previous;
    }
}
