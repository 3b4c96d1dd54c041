package dev.converge.handler.internal;

import dev.converge.crash.CrashPoint;
import dev.converge.flow.StepFlows;
import dev.converge.flow.internal.DeliveryFlows;
import dev.converge.handler.JobContext;
import dev.converge.lease.JobLease;
import dev.converge.ledger.StepLedger;
import dev.converge.ledger.internal.DeliveryLedger;
import dev.converge.queue.Delivery;
import dev.converge.queue.EnqueueResult;
import dev.converge.queue.Job;
import dev.converge.token.StepTokens;
import dev.converge.token.internal.DeliveryTokens;
import java.time.Duration;
import java.util.Optional;

/** A handler's context: the queue's delivery, with the engine's services around it. */
final class DefaultJobContext implements JobContext {
    private final Delivery delivery;
    private final EngineServices services;

    DefaultJobContext(Delivery delivery, EngineServices services) {
        this.delivery = delivery;
        this.services = services;
    }

    @Override
    public long jobId() {
        return delivery.jobId();
    }

    @Override
    public int attempt() {
        return delivery.attempt();
    }

    @Override
    public int maxAttempts() {
        return delivery.maxAttempts();
    }

    @Override
    public JobLease lease() {
        return delivery.lease();
    }

    @Override
    public Optional<Long> batchId() {
        return delivery.batchId();
    }

    @Override
    public Optional<Long> flowId() {
        return delivery.flowId();
    }

    @Override
    public boolean cancelled() {
        return delivery.cancelled();
    }

    @Override
    public void checkLease() {
        delivery.checkLease();
    }

    @Override
    public void verifyLease() {
        delivery.verifyLease();
    }

    @Override
    public void release(Duration delay) {
        delivery.release(delay);
    }

    @Override
    public void reached(CrashPoint point) {
        delivery.reached(point);
    }

    @Override
    public StepLedger ledger() {
        return new DeliveryLedger(services.ledger(), delivery);
    }

    @Override
    public StepFlows flows() {
        return new DeliveryFlows(services.flows(), delivery);
    }

    @Override
    public StepTokens tokens() {
        return new DeliveryTokens(services.tokens(), delivery);
    }

    @Override
    public <T> EnqueueResult enqueue(Job<T> job) {
        return services.enqueue().apply(job);
    }
}
