package dev.converge.claim.internal;

import dev.converge.store.internal.Dialects;
import dev.converge.claim.Claim;
import dev.converge.claim.Claims;
import dev.converge.store.Store;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

/** The engine's {@link Claims}. */
public final class ClaimService implements Claims {
    private final Store store;
    private final ClaimStore table;
    private final String node;

    public ClaimService(Store store, String node) {
        this.store = store;
        this.table = new ClaimStore(Dialects.forUrl(store.config().url(), store.config().schema()));
        this.node = node;
    }

    /** Takes the key for a fresh owner of this node; empty if someone else holds it. */
    public Optional<Claim> add(String key, Duration ttl) {
        return add(key, node + "/" + UUID.randomUUID(), ttl);
    }

    /** Takes the key for the given owner; empty if someone else holds it. */
    public Optional<Claim> add(String key, String owner, Duration ttl) {
        validate(key, ttl);
        return store.withConnection(c -> table.add(c, key, owner, ttl.toMillis(), store.clock().sqlNow()));
    }

    /** Releases the claim if this owner still holds it; false (and nothing changed) if it was lost. */
    public boolean release(Claim claim) {
        return store.withConnection(c -> table.release(c, claim, store.clock().sqlNow()));
    }

    /** Extends the claim if this owner still holds it unexpired. */
    public boolean extend(Claim claim, Duration ttl) {
        validate(claim.key(), ttl);
        return store.withConnection(c -> table.extend(c, claim, ttl.toMillis(), store.clock().sqlNow()));
    }

    public Optional<Claim> holder(String key) {
        return store.withConnection(c -> table.get(c, key));
    }

    private static void validate(String key, Duration ttl) {
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException("claim key must not be blank");
        }
        if (key.length() > 500) {
            throw new IllegalArgumentException("claim key longer than 500 characters");
        }
        if (ttl == null || ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("claim ttl must be positive");
        }
    }
}
