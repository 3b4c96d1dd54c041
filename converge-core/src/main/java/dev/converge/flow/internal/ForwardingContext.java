package dev.converge.flow.internal;

import dev.converge.crash.CrashPoint;
import dev.converge.flow.Flows;
import dev.converge.ledger.Ledger;
import dev.converge.queue.EnqueueResult;
import dev.converge.queue.Job;
import dev.converge.queue.JobContext;
import dev.converge.lease.JobLease;
import dev.converge.queue.internal.DeliveryInternals;
import dev.converge.token.Tokens;
import java.time.Duration;
import java.util.Optional;

/**
 * The compensating job's context, handed to each compensation it runs inline. Everything is
 * the outer delivery's (so ledger writes are fenced by its lease) except {@link #release},
 * which is captured: a compensation that asks to be run later has not finished.
 */
final class ForwardingContext implements JobContext, DeliveryInternals {
    private final JobContext outer;
    private Duration released;

    ForwardingContext(JobContext outer) {
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
    public Ledger ledger() {
        return outer.ledger();
    }

    @Override
    public Flows flows() {
        return outer.flows();
    }

    @Override
    public Tokens tokens() {
        return outer.tokens();
    }

    @Override
    public <T> EnqueueResult enqueue(Job<T> job) {
        return outer.enqueue(job);
    }

    @Override
    public void reached(CrashPoint point) {
        outer.reached(point);
    }
}
