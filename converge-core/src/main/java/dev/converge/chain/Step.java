package dev.converge.chain;

import dev.converge.batch.Batch;
import dev.converge.queue.Job;
import java.util.Objects;

/**
 * One step of a {@link Chain} or a flow: a single job, or a {@link Batch} of jobs that run side by
 * side. Sealed, so a switch over a chain's steps is complete with these two cases.
 */
public sealed interface Step permits Step.OneJob, Step.AllOf {

    /** A step that is one job. */
    record OneJob(Job<?> job) implements Step {
        public OneJob {
            Objects.requireNonNull(job, "job");
        }
    }

    /** A step that is a batch: it succeeds when its jobs do, and fails fast when one fails for good. */
    record AllOf(Batch batch) implements Step {
        public AllOf {
            Objects.requireNonNull(batch, "batch");
        }
    }
}
