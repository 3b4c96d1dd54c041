package dev.converge.flow;

import java.time.Instant;

/**
 * A flow as stored.
 *
 * @param attention why a person must look at it, or null
 */
public record FlowView(long id, String kind, String subject, FlowState state, Instant deadline, Long chainId,
        String failureReason, String attention, Instant createdAt, Instant updatedAt, Instant finishedAt) {
}
