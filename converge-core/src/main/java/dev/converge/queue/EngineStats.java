package dev.converge.queue;

/**
 * What one node's engine did since it started.
 *
 * @param leased     deliveries leased by this node
 * @param succeeded  deliveries recorded as succeeded
 * @param failed     deliveries recorded as failed for good
 * @param retried    deliveries put back for another attempt (failure, release)
 * @param cancelled  deliveries recorded as cancelled
 * @param leaseLost  deliveries whose outcome was refused because their lease had moved on
 * @param abandoned  deliveries that died without an outcome (simulated crash, lease lost mid-run)
 * @param rescued    expired leases of any node that this node put back or failed
 */
public record EngineStats(long leased, long succeeded, long failed, long retried, long cancelled, long leaseLost,
        long abandoned, long rescued) {
}
