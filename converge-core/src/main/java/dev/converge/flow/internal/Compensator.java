package dev.converge.flow.internal;

import dev.converge.crash.SimulatedCrash;
import dev.converge.flow.Compensation;
import dev.converge.lease.LeaseLost;
import dev.converge.queue.Delivery;
import dev.converge.queue.RetryPolicy;
import dev.converge.queue.internal.DeliveryHandler;
import dev.converge.queue.internal.DeliveryInternals;
import dev.converge.queue.internal.EngineRuntime;
import dev.converge.queue.internal.HandlerRegistry;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a failed flow's compensations, newest first, in one durable job of its own. Each
 * compensation is retried (the job releases itself with backoff and resumes where it stopped)
 * until it succeeds or gives up; one that gives up does not stop the others, and the flow then
 * ends {@code needs_attention}. A worker dying mid-way only means the job is redelivered and
 * resumes: compensations must be idempotent, which the ledger's teardown is.
 */
public final class Compensator implements DeliveryHandler<Compensator.CompensateFlow> {
    private static final Logger log = LoggerFactory.getLogger(Compensator.class);
    /** The compensating job's own attempts: each retry of a compensation uses one. */
    static final int ATTEMPTS = 100_000;
    /** How often a compensation waiting for the flow's running steps looks again. */
    static final Duration STEP_WAIT = Duration.ofMillis(200);

    /** The payload of the compensating job. */
    /**
     * The payload of the compensating job: the flow, and the round (0, then one per person's
     * retry; null in jobs enqueued by nodes of earlier versions).
     */
    public record CompensateFlow(long flowId, Integer round) {
    }

    private final FlowTracker tracker;
    private final RetryPolicy perCompensation;
    private final EngineRuntime runtime;

    /** {@code rt}: the runtime this compensator's jobs run on (it is registered with it before the node starts). */
    public Compensator(FlowTracker tracker, RetryPolicy perCompensation, EngineRuntime rt) {
        this.tracker = tracker;
        this.perCompensation = perCompensation;
        this.runtime = rt;
    }

    @Override
    public void handle(CompensateFlow p, Delivery ctx) {
        EngineRuntime rt = runtime;
        FlowStore flows = tracker.store();
        while (true) {
            ctx.checkLease();
            FlowTracker.CompensationTurn turn = rt.inRetriedFinishTransaction(tx -> tracker.compensationTurn(tx, p.flowId(),
                    p.round()));
            if (turn.over()) {
                return;
            }
            if (turn.waitForSteps()) {
                // a step still runs: undoing now could come before its side effect, and what it
                // registers later would never run. Waiting is not failing: no attempt is spent.
                log.debug("flow {}: waiting for its running steps before compensating", p.flowId());
                if (ctx instanceof DeliveryInternals d) {
                    d.postpone(STEP_WAIT);
                } else {
                    ctx.release(STEP_WAIT);
                }
                return;
            }
            Compensation comp = turn.run();
            ForwardingContext inner = new ForwardingContext(ctx);
            String error = run(rt, comp, inner);
            if (error == null && inner.releasedFor() != null) {
                ctx.release(inner.releasedFor()); // not finished yet (e.g. a create still in flight): come back
                return;
            }
            if (error == null) {
                fenced(ctx, rt.store().withConnection(c -> flows.endCompensation(c, comp.id(), true, null, ctx.lease(),
                        rt.store().clock().sqlNow())), "ending compensation " + comp.id());
                rt.events().compensationRan(comp.kind(), "done");
                continue;
            }
            int attempts = comp.attempts() + 1;
            if (attempts >= perCompensation.maxAttempts()) {
                log.warn("flow {}: compensation {} ({}) gave up after {} attempts: {}", p.flowId(), comp.id(), comp.kind(),
                        attempts, error);
                fenced(ctx, rt.store().withConnection(c -> flows.endCompensation(c, comp.id(), false, error, ctx.lease(),
                        rt.store().clock().sqlNow())), "giving up compensation " + comp.id());
                rt.events().compensationRan(comp.kind(), "gave_up");
                continue;
            }
            fenced(ctx, rt.store().withConnection(c -> flows.compensationFailedAttempt(c, comp.id(), error, ctx.lease())),
                    "counting a failed attempt of compensation " + comp.id());
            rt.events().compensationRan(comp.kind(), "retried");
            Duration wait = perCompensation.delayAfter(attempts);
            log.info("flow {}: compensation {} ({}) failed (attempt {}), retrying in {}ms: {}", p.flowId(), comp.id(),
                    comp.kind(), attempts, wait.toMillis(), error);
            ctx.release(wait);
            return;
        }
    }

    /** A compensation's outcome that did not land means this delivery is stale: it stops here. */
    private static void fenced(Delivery ctx, boolean landed, String what) {
        if (!landed) {
            throw new LeaseLost(ctx.lease(), what + ": the compensating job is no longer this delivery's");
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
    private static <T> void call(DeliveryHandler<T> handler, Object payload, Delivery ctx) throws Exception {
        handler.handle((T) payload, ctx);
    }
}
