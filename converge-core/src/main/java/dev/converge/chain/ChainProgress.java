package dev.converge.chain;

import java.time.Instant;

/** Where a chain stands. */
public record ChainProgress(long id, String name, ChainState state, int position, int size, Long flowId,
        Instant createdAt, Instant finishedAt) {
}
