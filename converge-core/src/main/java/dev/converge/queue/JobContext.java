package dev.converge.queue;

import dev.converge.crash.CrashPoint;
import dev.converge.flow.Flows;
import dev.converge.lease.JobLease;
import dev.converge.lease.LeaseLost;
import dev.converge.ledger.Ledger;
import dev.converge.token.Tokens;
import java.time.Duration;
import java.util.Optional;

/**
 * What a running handler knows about its delivery, and what it can ask of the engine: the
 * ledger, flows and tokens of the engine that runs it, and enqueueing more work. A step needs
 * nothing else, so a handler never holds a reference to its engine.
 *
 * <pre>{@code
 * (order, ctx) -> {
 *     if (ctx.cancelled()) return;                       // a sibling failed: act on nothing (R7)
 *     ctx.ledger().ensure(ctx, payments, "charge-" + order.id(), Map.of("cents", order.cents()));
 *     ctx.enqueue(Job.of(SHIP, order));
 * }
 * }</pre>
 *
 * <p>Tests may implement it with a fake of their own; the engine never casts it to anything else.
 */
public interface JobContext {

    long jobId();

    /** 1 on the first delivery, 2 on the second, ... */
    int attempt();

    int maxAttempts();

    /** This delivery's fencing identity. */
    JobLease lease();

    Optional<Long> batchId();

    Optional<Long> flowId();

    /**
     * Whether the work this job belongs to has been cancelled: its batch was cancelled by a
     * failing sibling, or its flow is no longer running. Asks the store; call it right before a
     * side effect (R7).
     */
    boolean cancelled();

    /**
     * Throws {@link LeaseLost} if this delivery may no longer hold its job: the heartbeat could
     * not extend it in time, or the store says its epoch moved on. Cheap when the lease is
     * healthy; the ledger calls it before every external call.
     */
    void checkLease() throws LeaseLost;

    /** Asks the store whether the lease is held right now (one round trip). */
    void verifyLease() throws LeaseLost;

    /** Asks to run this job again after the delay, once the handler returns. */
    void release(Duration delay);

    /** The side-effect ledger: how a step creates an external resource exactly once. */
    Ledger ledger();

    /** The flows of this engine (read one, fail one, start one). */
    Flows flows();

    /** The single-use token pools of this engine. */
    Tokens tokens();

    /** Enqueues a job in its own unit of work, as {@code engine.enqueue(job)} does. */
    <T> EnqueueResult enqueue(Job<T> job);

    /**
     * Announces that this delivery reached one of the named crash points in the handler's own
     * code, so the crash-point explorer can crash it there. Does nothing in production.
     */
    default void reached(CrashPoint point) {
    }
}
