package dev.converge.handler.internal;

import dev.converge.flow.internal.FlowService;
import dev.converge.ledger.internal.LedgerEngine;
import dev.converge.queue.EnqueueResult;
import dev.converge.queue.Job;
import dev.converge.token.internal.TokenService;
import java.util.function.Function;

/**
 * The engine's services a delivery's context binds to its delivery and hands to its handler. They
 * are built after the runtime (they run over it), so the engine gives them to its handlers once
 * they exist.
 */
public record EngineServices(LedgerEngine ledger, FlowService flows, TokenService tokens,
        Function<Job<?>, EnqueueResult> enqueue) {
}
