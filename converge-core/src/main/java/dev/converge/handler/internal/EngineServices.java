package dev.converge.handler.internal;

import dev.converge.flow.Flows;
import dev.converge.ledger.Ledger;
import dev.converge.queue.EnqueueResult;
import dev.converge.queue.Job;
import dev.converge.token.Tokens;
import java.util.function.Function;

/**
 * The engine's public services a delivery's context hands to its handler. They are built after
 * the runtime (they run over it), so the engine gives them to its handlers once they exist.
 */
public record EngineServices(Ledger ledger, Flows flows, Tokens tokens, Function<Job<?>, EnqueueResult> enqueue) {
}
