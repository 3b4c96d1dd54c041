package dev.converge.flow.internal;

import dev.converge.crash.SimulatedCrash;
import dev.converge.flow.Compensation;
import dev.converge.lease.LeaseLost;
import dev.converge.queue.JobContext;
import dev.converge.queue.JobHandler;
import dev.converge.queue.RetryPolicy;
import dev.converge.queue.internal.EngineRuntime;
import dev.converge.queue.internal.FinishContext;
import dev.converge.queue.internal.HandlerRegistry;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a failed flow's compensations, newest first, in one durable job of its own. Each
 * compensation is retried (the job releases itself with backoff and resumes where it stopped)
 * until it succeeds or gives up; one that gives up does not stop the others, and the flow then
 * ends {@code needs_attention}. A worker dying mid-way only means the job is redelivered and
 * resumes: compensations must be idempotent, which the ledger's teardown is.
 */
public final class Compensator implements JobHandler<Compensator.CompensateFlow> {
    private static final Logger log = LoggerFactory.getLogger(Compensator.class);
    /** The compensating job's own attempts: each retry of a compensation uses one. */
    static final int ATTEMPTS = 100_000;

    /** The payload of the compensating job. */
    public record CompensateFlow(long flowId) {
    }

    private final FlowTracker tracker;
    private final RetryPolicy perCompensation;
    private volatile EngineRuntime runtime;

    public Compensator(FlowTracker tracker, RetryPolicy perCompensation) {
        this.tracker = tracker;
        this.perCompensation = perCompensation;
    }

    /** The runtime this compensator's jobs run on; built after the compensator is registered. */
    public void wire(EngineRuntime rt) {
        this.runtime = rt;
    }

    @Override
    public void handle(CompensateFlow p, JobContext ctx) {
        EngineRuntime rt = runtime;
        FlowStore flows = tracker.store();
        while (true) {
            ctx.checkLease();
            Optional<Compensation> next = rt.store().withConnection(c -> flows.nextCompensation(c, p.flowId()));
            if (next.isEmpty()) {
                boolean allDone = rt.store().withConnection(c -> flows.compensations(c, p.flowId())).stream()
                        .noneMatch(x -> "failed".equals(x.state()));
                FinishContext[] tx = new FinishContext[1];
                rt.store().inTransaction(c -> {
                    tx[0] = rt.finishContext(c);
                    tracker.compensated(tx[0], p.flowId(), allDone);
                    return null;
                });
                tx[0].queuesToWake().forEach(rt.wakeup()::signal);
                return;
            }
            Compensation comp = next.get();
            ForwardingContext inner = new ForwardingContext(ctx);
            String error = run(rt, comp, inner);
            if (error == null && inner.releasedFor() != null) {
                ctx.release(inner.releasedFor()); // not finished yet (e.g. a create still in flight): come back
                return;
            }
            if (error == null) {
                rt.store().withConnection(c -> flows.endCompensation(c, comp.id(), true, null, rt.store().clock().sqlNow()));
                continue;
            }
            int attempts = comp.attempts() + 1;
            if (attempts >= perCompensation.maxAttempts()) {
                log.warn("flow {}: compensation {} ({}) gave up after {} attempts: {}", p.flowId(), comp.id(), comp.kind(),
                        attempts, error);
                rt.store().withConnection(c -> flows.endCompensation(c, comp.id(), false, error, rt.store().clock().sqlNow()));
                continue;
            }
            rt.store().withConnection(c -> {
                flows.compensationFailedAttempt(c, comp.id(), error);
                return null;
            });
            Duration wait = perCompensation.delayAfter(attempts);
            log.info("flow {}: compensation {} ({}) failed (attempt {}), retrying in {}ms: {}", p.flowId(), comp.id(),
                    comp.kind(), attempts, wait.toMillis(), error);
            ctx.release(wait);
            return;
        }
    }

    /** Runs one compensation; returns null on success, else what went wrong. */
    private static String run(EngineRuntime rt, Compensation comp, ForwardingContext inner) {
        HandlerRegistry.Registered<?> reg = rt.registry().get(comp.kind());
        if (reg == null || reg.handler() == null) {
            return "no handler for compensation type '" + comp.kind() + "' on this node";
        }
        try {
            Object payload = rt.codec().read(comp.payload(), reg.type().payloadType(), comp.kind());
            call(reg.handler(), payload, inner);
            return null;
        } catch (SimulatedCrash | LeaseLost e) {
            throw e;
        } catch (Exception e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> void call(JobHandler<T> handler, Object payload, JobContext ctx) throws Exception {
        handler.handle((T) payload, ctx);
    }
}
