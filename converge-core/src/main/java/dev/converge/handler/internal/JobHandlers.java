package dev.converge.handler.internal;

import dev.converge.handler.JobHandler;
import dev.converge.queue.Delivery;
import dev.converge.queue.internal.DeliveryHandler;

/**
 * Turns an application's {@link JobHandler}s into what the queue runs: each delivery is handed to
 * the handler as a {@code JobContext} carrying the engine's services. The handlers are registered
 * while the engine is being built, before its services exist; the engine wires them once they do.
 */
public final class JobHandlers {
    private volatile EngineServices services;

    /** Called once the engine's services exist, before any delivery runs. */
    public void wire(EngineServices s) {
        this.services = s;
    }

    /** The queue's handler for {@code handler}; equal for the same handler, so registering it twice is harmless. */
    public <T> DeliveryHandler<T> adapt(JobHandler<T> handler) {
        return new Adapted<>(handler, this);
    }

    private EngineServices services() {
        EngineServices s = services;
        if (s == null) {
            throw new IllegalStateException("the engine's services are not wired yet");
        }
        return s;
    }

    private record Adapted<T>(JobHandler<T> handler, JobHandlers owner) implements DeliveryHandler<T> {
        @Override
        public void handle(T payload, Delivery delivery) throws Exception {
            handler.handle(payload, new DefaultJobContext(delivery, owner.services()));
        }
    }
}
