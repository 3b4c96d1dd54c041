package dev.converge.queue.internal;

/**
 * What the engine's own compensation may ask of a delivery beyond the public
 * {@link dev.converge.queue.Delivery}. Not for handlers.
 */
public interface DeliveryInternals {
    /**
     * Like {@code release}, but the delivery does not count as an attempt: the job is waiting on
     * something else (the engine's own compensation waiting for a live step), not failing.
     */
    void postpone(java.time.Duration delay);
}
