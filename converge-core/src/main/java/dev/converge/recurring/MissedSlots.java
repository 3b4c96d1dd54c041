package dev.converge.recurring;

/**
 * What happens to slots that passed while no node was deciding them (every node down, or the
 * leader paused): they are never enqueued one by one.
 */
public enum MissedSlots {
    /** The missed slots collapse into one run, enqueued at once for the latest of them. */
    RUN_ONCE,
    /** A slot found later than its grace is skipped; the next one runs on time. */
    SKIP
}
