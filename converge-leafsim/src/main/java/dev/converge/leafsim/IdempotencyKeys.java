package dev.converge.leafsim;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The license leaf's memory of {@code Idempotency-Key}s: the request each key first came with and
 * the answer it got, kept for a retention period. A retry with the same key replays that answer
 * instead of creating a second license; the same key with another body is refused. Not
 * thread-safe: the caller holds its lock across lookup, create and remember.
 */
final class IdempotencyKeys {
    record Remembered(JsonNode request, SimResponse response, Instant storedAt) {
    }

    private final Map<String, Remembered> byKey = new HashMap<>();
    private final Clock clock;
    private final Duration retention;

    IdempotencyKeys(Clock clock, Duration retention) {
        this.clock = clock;
        this.retention = retention;
    }

    Optional<Remembered> lookup(String key) {
        Instant now = clock.instant();
        byKey.values().removeIf(r -> r.storedAt().plus(retention).isBefore(now));
        return Optional.ofNullable(byKey.get(key));
    }

    void remember(String key, JsonNode request, SimResponse response) {
        byKey.put(key, new Remembered(request, response, clock.instant()));
    }
}
