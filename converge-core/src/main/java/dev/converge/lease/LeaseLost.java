package dev.converge.lease;

import dev.converge.ConvergeException;

/**
 * This delivery of a job no longer holds its lease: it expired (the worker was paused, slow or
 * cut off) and the job may be running elsewhere under a newer epoch. The delivery must stop
 * before its next side effect; none of its writes will be accepted.
 */
public class LeaseLost extends ConvergeException {
    private final JobLease lease;

    public LeaseLost(JobLease lease, String why) {
        super("lease lost for " + lease + ": " + why);
        this.lease = lease;
    }

    public JobLease lease() {
        return lease;
    }
}
