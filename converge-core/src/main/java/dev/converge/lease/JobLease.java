package dev.converge.lease;

/**
 * The identity of one delivery of a job: its id and the epoch its lease was granted with.
 * Every write a worker makes on behalf of a job is fenced by this pair; once the job has been
 * leased again (a higher epoch), the old delivery's writes match no row.
 */
public record JobLease(long jobId, long epoch) {
    @Override
    public String toString() {
        return "job " + jobId + "@" + epoch;
    }
}
