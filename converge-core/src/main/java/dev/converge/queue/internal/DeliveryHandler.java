package dev.converge.queue.internal;

import dev.converge.queue.Delivery;

/**
 * What the queue runs for one delivery. The engine's own jobs (compensation, ledger teardown and
 * resolution, token resolution) are these; an application's {@code JobHandler} is adapted to one
 * that hands it a full {@code JobContext}.
 */
@FunctionalInterface
public interface DeliveryHandler<T> {
    void handle(T payload, Delivery delivery) throws Exception;
}
