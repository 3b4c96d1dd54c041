package dev.converge.chain.internal;

import dev.converge.batch.internal.BatchSpec;
import dev.converge.batch.internal.JobSpec;

/** One stored link of a chain: exactly one of a job or a batch. */
public record LinkSpec(JobSpec job, BatchSpec batch) {
    public LinkSpec {
        if ((job == null) == (batch == null)) {
            throw new IllegalArgumentException("a chain link is a job or a batch");
        }
    }
}
