package dev.converge;

import dev.converge.queue.Job;
import dev.converge.queue.internal.EngineRuntime;
import dev.converge.queue.internal.FinishHook;
import dev.converge.queue.internal.NewJob;

/**
 * What the engine's own tests reach behind {@link Converge}'s public methods: in the engine's
 * package, so that the engine itself keeps these package-private and no class below it needs a
 * static way back up.
 */
public final class EngineInternals {
    private EngineInternals() {
    }

    public static EngineRuntime runtime(Converge engine) {
        return engine.runtime();
    }

    /** The engine's flows with what only the engine does to them (the watchdog's pass). */
    public static dev.converge.flow.internal.FlowService flows(Converge engine) {
        return (dev.converge.flow.internal.FlowService) engine.flows();
    }

    /** The engine's token pools with the handler of their settling job. */
    public static dev.converge.token.internal.TokenService tokens(Converge engine) {
        return (dev.converge.token.internal.TokenService) engine.tokens();
    }

    /** A typed job as its row, failing on an unknown type or a bad payload. */
    public static NewJob encode(Converge engine, Job<?> job) {
        return engine.encode(job);
    }

    /** Adds a reaction to jobs finishing for good, in their finishing transaction. */
    public static Converge.Builder finishHook(Converge.Builder builder, FinishHook hook) {
        return builder.finishHook(hook);
    }

    /** Writes the queue history's pending samples now, not at the minute. */
    public static void flushHistory(Converge engine) {
        engine.runtime().history().flush();
    }

    /** Takes a queue history sample of {@code queues} now. */
    public static void sampleHistory(Converge engine, java.util.Collection<String> queues) {
        engine.runtime().history().sample(queues);
    }
}
