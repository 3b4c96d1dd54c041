package dev.converge.queue;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The states of a job and the one table of transitions allowed between them (docs/state-machines.md).
 * Every change of state in the store is a conditional update from an expected state (and, for a
 * running job, the expected lease epoch); zero rows updated means the caller lost the race.
 */
public enum JobState {
    AVAILABLE, RUNNING, SUCCEEDED, FAILED, CANCELLED;

    private static final Map<JobState, Set<JobState>> ALLOWED = Map.of(
            AVAILABLE, EnumSet.of(RUNNING, CANCELLED),
            RUNNING, EnumSet.of(SUCCEEDED, FAILED, CANCELLED, AVAILABLE),
            SUCCEEDED, EnumSet.noneOf(JobState.class),
            FAILED, EnumSet.noneOf(JobState.class),
            CANCELLED, EnumSet.noneOf(JobState.class));

    /** Made once: the completion path asks for it for every job it records. */
    private final String sql = name().toLowerCase(Locale.ROOT);

    /** The value stored in the database. */
    public String sql() {
        return sql;
    }

    /** The state as a database column holds it (its {@link #sql()} form). */
    public static JobState fromSql(String value) {
        return valueOf(value.toUpperCase());
    }

    public boolean isTerminal() {
        return ALLOWED.get(this).isEmpty();
    }

    public boolean canMoveTo(JobState next) {
        return ALLOWED.get(this).contains(next);
    }

    /** Every state with the states it may move to; a terminal state moves nowhere. */
    public static Map<JobState, Set<JobState>> transitions() {
        return ALLOWED;
    }
}
