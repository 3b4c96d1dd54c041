package dev.converge.claim;

import java.time.Duration;
import java.util.Optional;

/**
 * The familiar {@code Cache::add(key, ttl)} claim, made durable and owner-aware: collapses duplicate
 * deliveries to one runner, across threads and processes sharing the store.
 *
 * <pre>{@code
 * Optional<Claim> claim = claims.add("license:site:" + siteId + ":issuing", Duration.ofMinutes(10));
 * if (claim.isEmpty()) return;          // another delivery holds it
 * try { ... } finally { claims.release(claim.get()); }
 * }</pre>
 */
public interface Claims {

    /** Takes the key for a fresh owner of this node; empty if someone else holds it. */
    Optional<Claim> add(String key, Duration ttl);

    /** Takes the key for the given owner; empty if someone else holds it. */
    Optional<Claim> add(String key, String owner, Duration ttl);

    /** Releases the claim if this owner still holds it; false (and nothing changed) if it was lost. */
    boolean release(Claim claim);

    /** Extends the claim if this owner still holds it unexpired. */
    boolean extend(Claim claim, Duration ttl);

    /** Who holds the key now, if anyone (an expired claim is held by no one). */
    Optional<Claim> holder(String key);
}
