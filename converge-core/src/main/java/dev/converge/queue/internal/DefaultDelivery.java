package dev.converge.queue.internal;

import dev.converge.crash.CrashPoint;
import dev.converge.lease.JobLease;
import dev.converge.lease.LeaseLost;
import dev.converge.queue.Delivery;
import java.time.Duration;
import java.util.Optional;

/** One delivery, backed by the node's runtime. */
final class DefaultDelivery implements Delivery, DeliveryInternals {
    private final Shared node;
    private final RunningJob r;
    private volatile Duration releaseDelay;
    private volatile boolean refund;

    DefaultDelivery(Shared node, RunningJob r) {
        this.node = node;
        this.r = r;
    }

    @Override
    public long jobId() {
        return r.job.id();
    }

    @Override
    public int attempt() {
        return r.job.attempt();
    }

    @Override
    public int maxAttempts() {
        return r.job.maxAttempts();
    }

    @Override
    public JobLease lease() {
        return r.job.lease();
    }

    @Override
    public Optional<Long> batchId() {
        return Optional.ofNullable(r.job.batchId());
    }

    @Override
    public Optional<Long> flowId() {
        return Optional.ofNullable(r.job.flowId());
    }

    @Override
    public boolean cancelled() {
        if (r.job.batchId() == null && r.job.flowId() == null) {
            return false;
        }
        return node.store.withConnection(c -> node.cancellation.cancelled(c, r.job));
    }

    @Override
    public void checkLease() {
        if (r.lost) {
            throw new LeaseLost(lease(), r.lostWhy);
        }
        if (r.leaseExpiredLocally()) {
            r.markLost("no heartbeat was confirmed within the lease (" + node.settings.lease().toMillis()
                    + "ms); the job may be running elsewhere");
            throw new LeaseLost(lease(), r.lostWhy);
        }
    }

    @Override
    public void verifyLease() {
        checkLease();
        boolean valid = node.store.withConnection(c -> node.jobs.leaseValid(c, lease(), node.store.clock().sqlNow()));
        if (!valid) {
            r.markLost("the store says this delivery no longer holds the job");
            throw new LeaseLost(lease(), r.lostWhy);
        }
    }

    @Override
    public void release(Duration delay) {
        if (delay == null || delay.isNegative()) {
            throw new IllegalArgumentException("release delay must not be negative");
        }
        releaseDelay = delay;
    }

    @Override
    public void postpone(Duration delay) {
        release(delay);
        refund = true;
    }

    boolean refund() {
        return refund;
    }

    Duration releaseDelay() {
        return releaseDelay;
    }

    @Override
    public void reached(CrashPoint point) {
        node.crashPlan.reached(point, lease());
    }
}
