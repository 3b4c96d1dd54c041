package dev.converge.spring;

import dev.converge.Converge;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the engine once the application context is refreshed and stops it first when the
 * context closes: no new fetches, running handlers get the shutdown grace to finish, and what
 * is still running then is given back to be redelivered.
 */
public final class ConvergeLifecycle implements SmartLifecycle {
    private final Converge engine;
    private volatile boolean running;

    public ConvergeLifecycle(Converge engine) {
        this.engine = engine;
    }

    @Override
    public void start() {
        engine.start();
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        engine.close();
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
