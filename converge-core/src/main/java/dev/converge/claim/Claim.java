package dev.converge.claim;

import java.time.Instant;

/**
 * A claim key held by one owner: the first caller of {@code add(key, ttl)} gets it, everyone
 * after backs off until it expires or its owner releases it. The fence goes up every time the
 * key changes hands, so an owner whose claim expired and was taken by another cannot release
 * or extend what is no longer its own.
 */
public record Claim(String key, String owner, long fence, Instant expiresAt) {
}
