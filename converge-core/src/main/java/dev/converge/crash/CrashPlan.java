package dev.converge.crash;

import dev.converge.lease.JobLease;

/**
 * Decides what happens when a job reaches one of the engine's named dangerous windows (see
 * {@link CrashPoint}). In production nothing happens; the test kit's explorer throws
 * {@link SimulatedCrash} there, and the chaos harness halts the whole process.
 */
@FunctionalInterface
public interface CrashPlan {
    CrashPlan NONE = (point, lease) -> { };

    void reached(CrashPoint point, JobLease lease);
}
