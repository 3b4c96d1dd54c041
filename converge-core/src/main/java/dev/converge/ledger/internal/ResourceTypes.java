package dev.converge.ledger.internal;

import dev.converge.ledger.ResourceType;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The resource types this engine knows, by kind: what teardown and the reaper need to act on an entry. */
public final class ResourceTypes {
    private final Map<String, ResourceType> byKind = new ConcurrentHashMap<>();

    public void register(ResourceType type) {
        ResourceType prev = byKind.putIfAbsent(type.kind(), type);
        if (prev != null && prev != type) {
            throw new IllegalArgumentException("resource kind " + type.kind() + " is already registered");
        }
    }

    /** Whether a type of this kind is registered. */
    public boolean knows(String kind) {
        return byKind.containsKey(kind);
    }

    public ResourceType get(String kind) {
        ResourceType t = byKind.get(kind);
        if (t == null) {
            throw new IllegalStateException("no resource type '" + kind + "' is registered on this engine");
        }
        return t;
    }

    public Collection<ResourceType> all() {
        return byKind.values();
    }
}
