package dev.converge.flow.internal;

import dev.converge.crash.CrashPoint;
import dev.converge.lease.JobLease;
import dev.converge.queue.Delivery;
import dev.converge.queue.internal.DeliveryInternals;
import java.time.Duration;
import java.util.Optional;

/**
 * The compensating job's delivery, handed to each compensation it runs inline (whose handler gets
 * the engine's services around it). Everything is the outer delivery's (so ledger writes are
 * fenced by its lease) except {@link #release}, which is captured: a compensation that asks to be
 * run later has not finished.
 */
final class ForwardingContext implements Delivery, DeliveryInternals {
    private final Delivery outer;
    private Duration released;

    ForwardingContext(Delivery outer) {
        this.outer = outer;
    }

    Duration releasedFor() {
        return released;
    }

    @Override
    public long jobId() {
        return outer.jobId();
    }

    @Override
    public int attempt() {
        return outer.attempt();
    }

    @Override
    public int maxAttempts() {
        return outer.maxAttempts();
    }

    @Override
    public JobLease lease() {
        return outer.lease();
    }

    @Override
    public Optional<Long> batchId() {
        return outer.batchId();
    }

    @Override
    public Optional<Long> flowId() {
        return outer.flowId();
    }

    @Override
    public boolean cancelled() {
        return false;
    }

    @Override
    public void checkLease() {
        outer.checkLease();
    }

    @Override
    public void verifyLease() {
        outer.verifyLease();
    }

    @Override
    public void release(Duration delay) {
        released = delay;
    }

    @Override
    public void postpone(Duration delay) {
        released = delay;
    }

    @Override
    public void reached(CrashPoint point) {
        outer.reached(point);
    }
}
