package dev.converge.handler;

import dev.converge.flow.StepFlows;
import dev.converge.ledger.StepLedger;
import dev.converge.queue.Delivery;
import dev.converge.queue.EnqueueResult;
import dev.converge.queue.Job;
import dev.converge.token.StepTokens;

/**
 * What a running handler knows about its delivery, and what it can ask of the engine: the
 * ledger, flows and tokens of the engine that runs it, and enqueueing more work. A step needs
 * nothing else, so a handler never holds a reference to its engine.
 *
 * <pre>{@code
 * (order, ctx) -> {
 *     if (ctx.cancelled()) return;                       // a sibling failed: act on nothing (R7)
 *     ctx.ledger().ensure(payments, "charge-" + order.id(), Map.of("cents", order.cents()));
 *     ctx.enqueue(Job.of(SHIP, order));
 * }
 * }</pre>
 *
 * <p>The delivery part ({@link Delivery}) sits with the queue, below the services; this part,
 * which hands the services out, sits above them. Each service it hands out is bound to this
 * delivery: its lease fences what they write and its flow owns what they create, so a step
 * never passes its context back. Tests may implement it with a fake of their own; the engine
 * never casts it to anything else.
 */
public interface JobContext extends Delivery {

    /** The side-effect ledger, for this delivery: how a step creates an external resource exactly once. */
    StepLedger ledger();

    /** The flows of this engine, for this delivery (register a compensation, read, fail or start one). */
    StepFlows flows();

    /** The single-use token pools of this engine, for this delivery. */
    StepTokens tokens();

    /** Enqueues a job in its own unit of work, as {@code engine.enqueue(job)} does. */
    <T> EnqueueResult enqueue(Job<T> job);
}
