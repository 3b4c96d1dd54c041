package dev.converge;

import dev.converge.queue.internal.EngineRuntime;

/** The runtime behind an engine, for this module's tests (flushing the queue history now rather than at the minute). */
public final class EngineInternals {
    private EngineInternals() {
    }

    public static EngineRuntime runtime(Converge engine) {
        return engine.runtime();
    }
}
