package dev.converge.crash;

/**
 * Thrown at a crash point to make the running attempt die as a killed worker would: it is an
 * {@link Error} so ordinary {@code catch (Exception e)} blocks in handlers do not swallow it,
 * and the engine writes nothing for the attempt, leaving its lease to expire.
 */
public final class SimulatedCrash extends Error {
    private final CrashPoint point;

    public SimulatedCrash(CrashPoint point) {
        super("simulated crash at " + point, null, false, false);
        this.point = point;
    }

    public CrashPoint point() {
        return point;
    }
}
