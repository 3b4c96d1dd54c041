package dev.converge.handler.internal;

import dev.converge.handler.JobHandler;
import dev.converge.queue.Delivery;
import dev.converge.queue.internal.DeliveryHandler;

/**
 * Turns an application's {@link JobHandler}s into what the queue runs: each delivery is handed to
 * the handler as a {@code JobContext} whose services are bound to it.
 */
public final class JobHandlers {
    private JobHandlers() {
    }

    /** The queue's handler for {@code handler}, over the engine's services. */
    public static <T> DeliveryHandler<T> adapt(JobHandler<T> handler, EngineServices services) {
        return new Adapted<>(handler, services);
    }

    private record Adapted<T>(JobHandler<T> handler, EngineServices services) implements DeliveryHandler<T> {
        @Override
        public void handle(T payload, Delivery delivery) throws Exception {
            handler.handle(payload, new DefaultJobContext(delivery, services));
        }
    }
}
