package dev.converge.handler;

import dev.converge.flow.Flows;
import dev.converge.ledger.Ledger;
import dev.converge.queue.Delivery;
import dev.converge.queue.EnqueueResult;
import dev.converge.queue.Job;
import dev.converge.token.Tokens;

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
 * <p>The delivery part ({@link Delivery}) sits with the queue, below the services; this part,
 * which hands the services out, sits above them. Tests may implement it with a fake of their
 * own; the engine never casts it to anything else.
 */
public interface JobContext extends Delivery {

    /** The side-effect ledger: how a step creates an external resource exactly once. */
    Ledger ledger();

    /** The flows of this engine (read one, fail one, start one). */
    Flows flows();

    /** The single-use token pools of this engine. */
    Tokens tokens();

    /** Enqueues a job in its own unit of work, as {@code engine.enqueue(job)} does. */
    <T> EnqueueResult enqueue(Job<T> job);
}
