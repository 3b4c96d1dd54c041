package dev.converge.queue.internal;


/**
 * Told what this node's deliveries do, for metrics. Called on hot paths: implementations must be
 * cheap and must not throw (a throw is logged and ignored).
 */
public interface DeliveryObserver {
    /** A job was enqueued (not a duplicate of a unique key) through this engine. */
    default void enqueued(String queue, String kind) {
    }

    /** A delivery's handler starts, {@code waitedMillis} after the job became due. */
    default void started(LeasedJob job, long waitedMillis) {
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
}
