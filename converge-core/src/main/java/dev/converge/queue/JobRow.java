package dev.converge.queue;

import java.time.Instant;

/**
 * A job as stored, for inspection (admin views, tests, the demo's report). {@code leaseOwner} is
 * the node holding it while it runs and, after that, the node that ran its last attempt (null
 * before its first, or where a previous release ended the attempt). Its failed attempts are {@code Converge.attempts(id)}.
 */
public record JobRow(
        long id,
        String queue,
        String kind,
        String payload,
        JobState state,
        Instant runAt,
        int attempt,
        int maxAttempts,
        long epoch,
        String leaseOwner,
        Instant leaseExpiresAt,
        String uniqueKey,
        Long batchId,
        Long chainId,
        Integer chainPos,
        Long flowId,
        String lastError,
        Instant createdAt,
        Instant startedAt,
        Instant finishedAt) {
}
