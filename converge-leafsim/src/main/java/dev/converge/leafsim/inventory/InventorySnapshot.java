package dev.converge.leafsim.inventory;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A consistent copy of one leaf's ground truth: what exists now and every change it ever accepted.
 */
public record InventorySnapshot(String leaf, List<SimResource> current, List<InventoryEvent> history) {
    public InventorySnapshot {
        current = List.copyOf(current);
        history = List.copyOf(history);
    }

    /** Every create the leaf accepted, including those deleted since. */
    public long creates() {
        return history.stream().filter(e -> e.kind() == InventoryEvent.Kind.CREATED).count();
    }

    /** Creates accepted for one natural key (in any scope): more than one means a duplicate happened. */
    public long createsOf(String naturalKey) {
        return history.stream()
                .filter(e -> e.kind() == InventoryEvent.Kind.CREATED && e.naturalKey().equals(naturalKey))
                .count();
    }

    /** Resources that exist now for one natural key. */
    public List<SimResource> currentOf(String naturalKey) {
        return current.stream().filter(r -> r.naturalKey().equals(naturalKey)).toList();
    }

    /** Natural key to number of accepted creates, sorted by key. */
    public Map<String, Long> createsByKey() {
        Map<String, Long> counts = new TreeMap<>();
        history.stream().filter(e -> e.kind() == InventoryEvent.Kind.CREATED)
                .forEach(e -> counts.merge(e.naturalKey(), 1L, Long::sum));
        return counts;
    }
}
