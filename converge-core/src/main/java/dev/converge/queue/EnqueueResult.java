package dev.converge.queue;

/** The id of an enqueued job, and whether a job with the same unique key already existed. */
public record EnqueueResult(long jobId, boolean duplicate) {
}
