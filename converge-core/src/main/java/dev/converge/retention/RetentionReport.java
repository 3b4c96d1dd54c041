package dev.converge.retention;

/**
 * What one retention round deleted. {@code largestBatch} is the most rows of one table a single
 * delete statement removed in the round (never above the policy's batch size).
 */
public record RetentionReport(long jobs, long batches, long chains, long flows, long flowEvents, long compensations,
        int largestBatch) {

    public long total() {
        return jobs + batches + chains + flows + flowEvents + compensations;
    }
}
