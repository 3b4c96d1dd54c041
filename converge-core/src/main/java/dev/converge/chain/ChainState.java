package dev.converge.chain;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/** The states of a chain and their allowed transitions. */
public enum ChainState {
    RUNNING, SUCCEEDED, FAILED, CANCELLED;

    private static final Map<ChainState, Set<ChainState>> ALLOWED = Map.of(
            RUNNING, EnumSet.of(SUCCEEDED, FAILED, CANCELLED),
            SUCCEEDED, EnumSet.noneOf(ChainState.class),
            FAILED, EnumSet.noneOf(ChainState.class),
            CANCELLED, EnumSet.noneOf(ChainState.class));

    public String sql() {
        return name().toLowerCase();
    }

    /** The state as a database column holds it (its {@link #sql()} form). */
    public static ChainState fromSql(String s) {
        return valueOf(s.toUpperCase());
    }

    public boolean canMoveTo(ChainState next) {
        return ALLOWED.get(this).contains(next);
    }

    /** Every state with the states it may move to; a terminal state moves nowhere. */
    public static Map<ChainState, Set<ChainState>> transitions() {
        return ALLOWED;
    }
}
