package dev.converge.token;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The states of a single-use token (R11): it has an owner for its whole life. Checked out by one
 * delivery, it is spent once, or given back on a definitive failure. A token whose use started
 * ({@code usedAt} set) and whose owner died is never handed out again blindly.
 */
public enum TokenState {
    AVAILABLE, CHECKED_OUT, SPENT;

    private static final Map<TokenState, Set<TokenState>> ALLOWED = Map.of(
            AVAILABLE, EnumSet.of(CHECKED_OUT),
            CHECKED_OUT, EnumSet.of(SPENT, AVAILABLE),
            SPENT, EnumSet.noneOf(TokenState.class));

    public String sql() {
        return name().toLowerCase();
    }

    /** The state as a database column holds it (its {@link #sql()} form). */
    public static TokenState fromSql(String s) {
        return valueOf(s.toUpperCase());
    }

    public boolean canMoveTo(TokenState next) {
        return ALLOWED.get(this).contains(next);
    }

    /** Every state with the states it may move to; a terminal state moves nowhere. */
    public static Map<TokenState, Set<TokenState>> transitions() {
        return ALLOWED;
    }
}
