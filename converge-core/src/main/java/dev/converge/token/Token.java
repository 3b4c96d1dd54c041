package dev.converge.token;

import java.time.Instant;

/** A single-use token as stored. The value is a permission, not a secret credential: it may be shown to its owner. */
public record Token(long id, String pool, String value, String subject, TokenState state, Long ownerJobId,
        Long ownerEpoch, Instant checkedOutAt, Instant usedAt, Instant spentAt, Instant createdAt) {
}
