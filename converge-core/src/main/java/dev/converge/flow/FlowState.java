package dev.converge.flow;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The states of a flow and the one table of transitions allowed between them. A flow that fails
 * compensates first ({@code compensating}) and only then reports: {@code failed} when every
 * compensation finished, {@code needs_attention} when one gave up or an unsafe operation ended
 * without a known outcome.
 */
public enum FlowState {
    RUNNING, SUCCEEDED, COMPENSATING, FAILED, NEEDS_ATTENTION;

    private static final Map<FlowState, Set<FlowState>> ALLOWED = Map.of(
            RUNNING, EnumSet.of(SUCCEEDED, COMPENSATING),
            COMPENSATING, EnumSet.of(FAILED, NEEDS_ATTENTION),
            SUCCEEDED, EnumSet.noneOf(FlowState.class),
            FAILED, EnumSet.noneOf(FlowState.class),
            NEEDS_ATTENTION, EnumSet.noneOf(FlowState.class));

    public String sql() {
        return name().toLowerCase();
    }

    /** The state as a database column holds it (its {@link #sql()} form). */
    public static FlowState fromSql(String s) {
        return valueOf(s.toUpperCase());
    }

    public boolean isTerminal() {
        return ALLOWED.get(this).isEmpty();
    }

    public boolean canMoveTo(FlowState next) {
        return ALLOWED.get(this).contains(next);
    }

    /** Every state with the states it may move to; a terminal state moves nowhere. */
    public static Map<FlowState, Set<FlowState>> transitions() {
        return ALLOWED;
    }
}
