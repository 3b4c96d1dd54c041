package dev.converge.flow;

import java.time.Instant;

/** One registered compensation of a flow: what to run to undo a step, and how far it got. */
public record Compensation(long id, long flowId, String kind, String payload, String state, int attempts,
        String lastError, Instant createdAt, Instant finishedAt) {
}
