package dev.converge.batch;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The states of a batch and their allowed transitions. A batch is {@code running} until its
 * jobs are all done ({@code succeeded}, or {@code failed} if some failed and failures were
 * allowed), or until the first failure cancels it ({@code cancelled}; it stays cancelled while
 * its running jobs drain).
 */
public enum BatchState {
    RUNNING, SUCCEEDED, FAILED, CANCELLED;

    private static final Map<BatchState, Set<BatchState>> ALLOWED = Map.of(
            RUNNING, EnumSet.of(SUCCEEDED, FAILED, CANCELLED),
            SUCCEEDED, EnumSet.noneOf(BatchState.class),
            FAILED, EnumSet.noneOf(BatchState.class),
            CANCELLED, EnumSet.noneOf(BatchState.class));

    public String sql() {
        return name().toLowerCase();
    }

    /** The state as a database column holds it (its {@link #sql()} form). */
    public static BatchState fromSql(String s) {
        return valueOf(s.toUpperCase());
    }

    public boolean canMoveTo(BatchState next) {
        return ALLOWED.get(this).contains(next);
    }

    /** Every state with the states it may move to; a terminal state moves nowhere. */
    public static Map<BatchState, Set<BatchState>> transitions() {
        return ALLOWED;
    }
}
