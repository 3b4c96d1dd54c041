package dev.converge.proof.bench;

import dev.converge.queue.JobType;

/** The benchmark's job: a small payload and a handler that does nothing, so the engine is all that is measured. */
record NoopJob(int n) {
    static final String QUEUE = "bench";
    static final JobType<NoopJob> TYPE = JobType.of("bench.noop", NoopJob.class).withQueue(QUEUE);

    /** The payload the engine writes for job {@code n}, for the references to write the same bytes. */
    static String payload(int n) {
        return "{\"n\":" + n + "}";
    }
}
