package dev.converge.batch;

import java.time.Instant;

/** Where a batch stands: its counts and state, as stored. */
public record BatchProgress(long id, String name, BatchState state, boolean allowFailures, int total, int pending,
        int succeeded, int failed, int cancelled, Long chainId, Integer chainPos, Long flowId, Instant createdAt,
        Instant cancelledAt, Instant finishedAt) {

    public boolean finished() {
        return finishedAt != null;
    }
}
