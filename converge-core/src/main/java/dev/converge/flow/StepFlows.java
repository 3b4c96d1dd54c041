package dev.converge.flow;

import dev.converge.queue.Job;
import java.util.Optional;

/**
 * Flows as a running step sees them: what it registers is registered for its own flow, fenced by
 * its own lease, so the step never passes its context back. Obtained from {@code ctx.flows()};
 * the engine-wide view is {@code engine.flows()} ({@link Flows}).
 *
 * <pre>{@code
 * ctx.flows().compensateWith(Job.of(REFUND, order));   // before the charge it undoes
 * }</pre>
 */
public interface StepFlows {

    /**
     * Registers what undoes this step of the running job's flow. On failure, compensations run
     * newest first, each until it succeeds or gives up. They must be idempotent.
     *
     * <p>A flow that fails while this step still runs waits for it before undoing anything, so a
     * compensation registered before or after the side effect runs after it. Refused with
     * {@link dev.converge.lease.LeaseLost} when this delivery no longer holds its job, and with
     * {@link dev.converge.queue.JobCancelledException} when the flow has already ended: either
     * way the step must stop (register before acting, and nothing is left behind). Refused for
     * good ({@link dev.converge.queue.NonRetryableException}) for a job outside a flow.
     */
    void compensateWith(Job<?> compensation);

    /** Starts another flow in its own transaction, or returns the run that exists (see {@link Flows#start(Flow)}). */
    FlowRun start(Flow flow);

    /** Fails a running flow (see {@link Flows#fail}). */
    boolean fail(long flowId, String reason);

    /** A flow by id. */
    Optional<FlowView> get(long flowId);

    /** The flow of a kind for a subject (there is at most one). */
    Optional<FlowView> find(String kind, String subject);
}
