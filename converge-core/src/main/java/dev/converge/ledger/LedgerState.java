package dev.converge.ledger;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The states of a ledger entry (one external resource) and the one table of transitions allowed
 * between them. {@code claimed} and {@code uncertain} are never mistaken for real: an unconfirmed
 * claim stays identifiable and collectable forever (R9). A deleted or released entry may be
 * claimed again for a new generation of the same natural key.
 */
public enum LedgerState {
    CLAIMED, UNCERTAIN, CONFIRMED, DELETING, DELETED, RELEASED;

    private static final Map<LedgerState, Set<LedgerState>> ALLOWED = Map.of(
            CLAIMED, EnumSet.of(CONFIRMED, UNCERTAIN, RELEASED, DELETING),
            UNCERTAIN, EnumSet.of(CONFIRMED, RELEASED, DELETING),
            CONFIRMED, EnumSet.of(DELETING),
            DELETING, EnumSet.of(DELETED, RELEASED),
            DELETED, EnumSet.of(CLAIMED),
            RELEASED, EnumSet.of(CLAIMED));

    public String sql() {
        return name().toLowerCase();
    }

    /** The state as a database column holds it (its {@link #sql()} form). */
    public static LedgerState fromSql(String s) {
        return valueOf(s.toUpperCase());
    }

    public boolean canMoveTo(LedgerState next) {
        return ALLOWED.get(this).contains(next);
    }

    /** Whether the resource may exist at the leaf without being confirmed here. */
    public boolean unresolved() {
        return this == CLAIMED || this == UNCERTAIN || this == DELETING;
    }

    /** Every state with the states it may move to; a terminal state moves nowhere. */
    public static Map<LedgerState, Set<LedgerState>> transitions() {
        return ALLOWED;
    }
}
