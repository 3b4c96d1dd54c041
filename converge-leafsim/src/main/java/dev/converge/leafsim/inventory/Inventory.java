package dev.converge.leafsim.inventory;

import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The state of one simulated leaf and its history. Every method holds the one lock, so a
 * uniqueness check and its insert are atomic even when many threads create the same key: the
 * simulated leaf must never produce a duplicate that the real service would have refused.
 */
public final class Inventory {
    private final String leaf;
    private final Supplier<String> ids;
    private final Clock clock;
    private final Map<String, SimResource> current = new LinkedHashMap<>();
    private final List<InventoryEvent> history = new ArrayList<>();

    /** @param ids new ids; called under this inventory's lock, so it need not be thread-safe */
    public Inventory(String leaf, Supplier<String> ids, Clock clock) {
        this.leaf = Objects.requireNonNull(leaf);
        this.ids = Objects.requireNonNull(ids);
        this.clock = Objects.requireNonNull(clock);
    }

    public String leaf() {
        return leaf;
    }

    /** Creates unconditionally (a leaf without uniqueness, like the license service). */
    public synchronized SimResource insert(String scope, String naturalKey, String tag,
            Function<String, Map<String, Object>> fieldsForId) {
        String id = ids.get();
        while (current.containsKey(id)) {
            id = ids.get();
        }
        SimResource created = new SimResource(id, scope, naturalKey, tag, clock.instant(), fieldsForId.apply(id));
        current.put(id, created);
        record(InventoryEvent.Kind.CREATED, created);
        return created;
    }

    /** Creates only if no current resource in the scope has the natural key; empty if one does. */
    public synchronized Optional<SimResource> insertIfAbsent(String scope, String naturalKey, String tag,
            Function<String, Map<String, Object>> fieldsForId) {
        if (byKey(scope, naturalKey).isPresent()) {
            return Optional.empty();
        }
        return Optional.of(insert(scope, naturalKey, tag, fieldsForId));
    }

    public synchronized Optional<SimResource> update(String id, UnaryOperator<Map<String, Object>> change) {
        SimResource found = current.get(id);
        if (found == null) {
            return Optional.empty();
        }
        SimResource changed = found.withFields(change.apply(new LinkedHashMap<>(found.fields())));
        current.put(id, changed);
        record(InventoryEvent.Kind.UPDATED, changed);
        return Optional.of(changed);
    }

    public synchronized Optional<SimResource> remove(String id) {
        SimResource removed = current.remove(id);
        if (removed != null) {
            record(InventoryEvent.Kind.DELETED, removed);
        }
        return Optional.ofNullable(removed);
    }

    public synchronized Optional<SimResource> byId(String id) {
        return Optional.ofNullable(current.get(id));
    }

    public synchronized Optional<SimResource> byKey(String scope, String naturalKey) {
        return current.values().stream()
                .filter(r -> Objects.equals(r.scope(), scope) && r.naturalKey().equals(naturalKey))
                .findFirst();
    }

    /** Current resources in one scope (null scope: all), in creation order. */
    public synchronized List<SimResource> inScope(String scope) {
        return current.values().stream().filter(r -> scope == null || scope.equals(r.scope())).toList();
    }

    public synchronized InventorySnapshot snapshot() {
        return new InventorySnapshot(leaf, new ArrayList<>(current.values()), history);
    }

    private void record(InventoryEvent.Kind kind, SimResource resource) {
        history.add(new InventoryEvent(history.size() + 1L, clock.instant(), kind, resource.id(), resource.scope(),
                resource.naturalKey(), resource.tag()));
    }
}
