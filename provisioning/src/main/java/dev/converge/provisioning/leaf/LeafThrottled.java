package dev.converge.provisioning.leaf;

import dev.converge.ledger.LeafRejected;
import dev.converge.handler.JobHandler;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The leaf refused the call because of its rate limit: nothing was changed there, and the leaf
 * said (or its headers imply) when to come back. A step that meets it is released with that delay
 * ({@link #releasingWhenThrottled}), not failed: a throttled leaf is busy, not broken.
 */
public final class LeafThrottled extends LeafRejected {
    private final Duration delay;

    LeafThrottled(String leaf, String message, int status, Duration delay) {
        super(leaf, message + " (come back in " + delay.toSeconds() + " s)", status, true, delay, null);
        this.delay = Objects.requireNonNull(delay, "delay");
    }

    /** How long the leaf asked us to wait. */
    public Duration delay() {
        return delay;
    }

    /**
     * Wraps a step's handler: if a leaf throttled it anywhere inside (directly, or wrapped by the
     * ledger), the job is released to run again after the leaf's delay instead of failing the attempt.
     */
    public static <T> JobHandler<T> releasingWhenThrottled(JobHandler<T> handler) {
        Objects.requireNonNull(handler, "handler");
        return (payload, ctx) -> {
            try {
                handler.handle(payload, ctx);
            } catch (Exception e) {
                Optional<LeafThrottled> throttled = find(e);
                if (throttled.isEmpty()) {
                    throw e;
                }
                ctx.release(throttled.get().delay());
            }
        };
    }

    /** The rate-limit refusal in an exception's cause chain, if any. */
    public static Optional<LeafThrottled> find(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof LeafThrottled throttled) {
                return Optional.of(throttled);
            }
        }
        return Optional.empty();
    }
}
