package dev.converge.batch.internal;

import dev.converge.batch.Batch;
import dev.converge.queue.Job;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** A batch stored to be dispatched later (a chain or flow step), its jobs already encoded. */
public record BatchSpec(String name, List<JobSpec> jobs, JobSpec thenJob, JobSpec catchJob, JobSpec finallyJob,
        boolean allowFailures) {

    public BatchSpec {
        if (jobs == null || jobs.isEmpty()) {
            throw new IllegalArgumentException("batch '" + name + "' has no jobs: a batch needs at least one");
        }
        jobs = List.copyOf(jobs);
    }

    /** Validates and encodes a batch definition (every job type known, every payload serializable). */
    public static BatchSpec of(Batch batch, Function<Job<?>, JobSpec> encoder) {
        List<JobSpec> jobs = new ArrayList<>();
        for (Job<?> j : batch.jobs()) {
            JobSpec spec = encoder.apply(j);
            if (spec.uniqueKey() != null) {
                throw new IllegalArgumentException("jobs of a batch cannot carry their own unique key: the batch is "
                        + "what makes them unique");
            }
            jobs.add(spec);
        }
        return new BatchSpec(batch.name(), jobs, spec(batch.onSuccessJob(), encoder), spec(batch.onFailureJob(), encoder),
                spec(batch.onEndJob(), encoder), batch.failuresAllowed());
    }

    private static JobSpec spec(Job<?> job, Function<Job<?>, JobSpec> encoder) {
        return job == null ? null : encoder.apply(job);
    }
}
