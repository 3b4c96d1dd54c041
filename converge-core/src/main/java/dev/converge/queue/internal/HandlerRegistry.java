package dev.converge.queue.internal;

import dev.converge.queue.JobType;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The job types this node knows, and the handlers of those it runs. */
public final class HandlerRegistry {
    /** A type with its handler (null where the type is only declared, for enqueueing). */
    public record Registered<T>(JobType<T> type, DeliveryHandler<T> handler) {
    }

    private final Map<String, Registered<?>> byKind = new ConcurrentHashMap<>();
    private volatile String[] handled;

    public <T> void register(JobType<T> type, DeliveryHandler<T> handler) {
        Registered<?> prev = byKind.get(type.name());
        if (prev != null && prev.handler() != null && handler != null && !prev.handler().equals(handler)) {
            throw new IllegalArgumentException("job type " + type.name() + " already has a handler");
        }
        if (prev != null && prev.type().payloadType() != type.payloadType()) {
            throw new IllegalArgumentException("job type " + type.name() + " is already registered with payload "
                    + prev.type().payloadType().getName());
        }
        if (prev == null || handler != null) {
            byKind.put(type.name(), new Registered<>(type, handler));
            handled = null;
        }
    }

    /** The job types this node has a handler for, sorted: the only ones its workers lease. */
    public String[] handledKinds() {
        String[] kinds = handled;
        if (kinds == null) {
            kinds = byKind.values().stream().filter(r -> r.handler() != null).map(r -> r.type().name()).sorted()
                    .toArray(String[]::new);
            handled = kinds;
        }
        return kinds;
    }

    public Registered<?> get(String kind) {
        return byKind.get(kind);
    }

    public boolean knows(String kind) {
        return byKind.containsKey(kind);
    }
}
