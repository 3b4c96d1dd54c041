package dev.converge.leafsim.fault;

/**
 * What a simulated leaf does wrong. The suffix says whether the leaf's action (the create, the
 * delete, ...) ran: {@code _BEFORE} faults and {@link #THROTTLE} answer before it, so nothing
 * changed; {@code _AFTER} faults break the answer after the change was made, which is exactly the
 * window where a naive retry makes a duplicate.
 */
public enum FaultType {
    /** Adds latency before handling; combines with one of the others. */
    LATENCY(false),
    /** 500 before the action: nothing changed. */
    ERROR_BEFORE(false),
    /** 429 with Retry-After before the action: nothing changed. */
    THROTTLE(false),
    /** The action ran, then the caller sees a 500. */
    ERROR_AFTER(true),
    /** The action ran, then the answer is held longer than any sane client timeout. */
    HANG_AFTER(true),
    /** The action ran, then a 2xx whose body is not the expected JSON. */
    MALFORMED_AFTER(true),
    /** The action ran, then the TCP connection is reset with no answer at all. */
    RESET_AFTER(true);

    private final boolean actionRuns;

    FaultType(boolean actionRuns) {
        this.actionRuns = actionRuns;
    }

    /** Whether the leaf's action still takes effect when this fault fires. */
    public boolean actionRuns() {
        return actionRuns;
    }
}
