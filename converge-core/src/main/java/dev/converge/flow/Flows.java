package dev.converge.flow;

import dev.converge.queue.Job;
import java.sql.Connection;
import java.util.List;
import java.util.Optional;

/**
 * Starts, fails and inspects flows. Obtained from {@code engine.flows()}; a running step reaches
 * its own flow through {@code ctx.flows()} ({@link StepFlows}).
 */
public interface Flows {

    /**
     * Starts the flow in its own transaction, or returns the run that already exists for its
     * kind and subject ({@code created == false}); never a second run.
     */
    FlowRun start(Flow flow);

    /** Starts the flow inside the caller's transaction: it exists if and only if the caller commits. */
    FlowRun start(Connection callerTransaction, Flow flow);

    /**
     * Fails a running flow through the one terminal-failure path (compensate, then report).
     * Returns false if the flow was not running: someone else failed it first, or it ended.
     */
    boolean fail(long flowId, String reason);

    /**
     * Registers a compensation in the caller's transaction (e.g. when the flow starts, or with
     * the claim of what it undoes). Refused, like {@link StepFlows#compensateWith}, when the flow
     * has ended.
     */
    void compensateWith(Connection c, long flowId, Job<?> compensation);

    /**
     * A person's retry of a flow that needs attention, from where it stopped: it compensates
     * again (what gave up runs again; what is done stays done), then reports as any failed flow
     * does. Fenced by the flow's state: retried twice at once, it restarts once. The person and
     * the reason go into the flow's history.
     *
     * @return true if this call restarted the flow; false if it was not in {@code needs_attention}
     *         (it was retried already, or it is in another state)
     */
    boolean retry(long flowId, String actor, String reason);

    /** A flow by id. */
    Optional<FlowView> get(long flowId);

    /** The flow of a kind for a subject (there is at most one). */
    Optional<FlowView> find(String kind, String subject);

    /** A flow's history, oldest first. */
    List<FlowEvent> history(long flowId);

    /** A flow's registered compensations. */
    List<Compensation> compensations(long flowId);
}
