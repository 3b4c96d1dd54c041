package dev.converge.leafsim.inventory;

import java.time.Instant;

/**
 * One change a leaf accepted. The history is kept after deletes so a checker can count
 * duplicate creates that were later cleaned up.
 */
public record InventoryEvent(long seq, Instant at, Kind kind, String id, String scope, String naturalKey,
        String tag) {
    public enum Kind { CREATED, UPDATED, DELETED }
}
