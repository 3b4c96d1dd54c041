package dev.converge.batch.internal;

import java.util.List;

/** A batch stored to be dispatched later (a chain or flow step), its jobs already encoded. */
public record BatchSpec(String name, List<JobSpec> jobs, JobSpec thenJob, JobSpec catchJob, JobSpec finallyJob,
        boolean allowFailures) {

    public BatchSpec {
        if (jobs == null || jobs.isEmpty()) {
            throw new IllegalArgumentException("batch '" + name + "' has no jobs: a batch needs at least one");
        }
        jobs = List.copyOf(jobs);
    }
}
