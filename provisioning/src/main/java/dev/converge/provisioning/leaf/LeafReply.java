package dev.converge.provisioning.leaf;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.ledger.AmbiguousOutcome;
import dev.converge.ledger.LeafCallException;
import dev.converge.ledger.LeafRejected;
import dev.converge.ledger.ResourceExists;
import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * A leaf's HTTP answer and the classification rules shared by every driver: what a status means
 * for a create, a read and a delete. Bodies are parsed strictly; nothing here reads a status as
 * success unless it is 2xx, and callers still validate the 2xx body.
 */
record LeafReply(String leaf, String call, int status, HttpHeaders headers, String body) {
    private static final ObjectMapper JSON = new ObjectMapper();

    boolean isSuccess() {
        return status >= 200 && status < 300;
    }

    /** The body as JSON, or empty when it is not JSON at all. */
    Optional<JsonNode> json() {
        if (body == null || body.isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.of(JSON.readTree(body));
        } catch (JsonProcessingException e) {
            return Optional.empty();
        }
    }

    static final Duration DEFAULT_THROTTLE = Duration.ofSeconds(60);
    static final Duration MAX_THROTTLE = Duration.ofMinutes(15);

    /** Retry-After as delay-seconds or an HTTP-date (RFC 9110), never negative. */
    Optional<Duration> retryAfter() {
        return retryAfter(Instant.now());
    }

    Optional<Duration> retryAfter(Instant now) {
        return headers.firstValue("Retry-After").map(String::trim).flatMap(value -> {
            try {
                return Optional.of(Duration.ofSeconds(Math.max(0, Long.parseLong(value))));
            } catch (NumberFormatException e) {
                try {
                    Instant at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
                    return Optional.of(at.isAfter(now) ? Duration.between(now, at) : Duration.ZERO);
                } catch (DateTimeParseException notADate) {
                    return Optional.empty();
                }
            }
        });
    }

    /**
     * Whether the leaf refused because of its rate limit, and for how long: a 429 (every leaf), or a
     * 403 that carries {@code Retry-After}, {@code X-RateLimit-Remaining: 0} or a message about a
     * rate limit (GitHub's primary and secondary limits). The wait is {@code Retry-After}, else
     * {@code X-RateLimit-Reset} (epoch seconds, or seconds from now where the value is too small to
     * be a date) minus now, else a minute; at least a second and at most {@link #MAX_THROTTLE}.
     */
    Optional<Duration> throttledFor(Instant now) {
        boolean exhausted = headers.firstValue("X-RateLimit-Remaining").map(String::trim).filter("0"::equals).isPresent();
        Optional<Duration> retryAfter = retryAfter(now);
        boolean saysRateLimit = status == 403 && json().map(node -> node.path("message").asText(""))
                .filter(m -> m.toLowerCase(java.util.Locale.ROOT).contains("rate limit")).isPresent();
        if (status != 429 && !(status == 403 && (exhausted || retryAfter.isPresent() || saysRateLimit))) {
            return Optional.empty();
        }
        Duration wait = retryAfter.or(() -> exhausted ? resetIn(now) : Optional.empty()).orElse(DEFAULT_THROTTLE);
        if (wait.compareTo(Duration.ofSeconds(1)) < 0) {
            wait = Duration.ofSeconds(1);
        }
        return Optional.of(wait.compareTo(MAX_THROTTLE) > 0 ? MAX_THROTTLE : wait);
    }

    private Optional<Duration> resetIn(Instant now) {
        return headers.firstValue("X-RateLimit-Reset").map(String::trim).flatMap(value -> {
            try {
                long reset = Long.parseLong(value);
                Instant at = reset < 1_000_000_000L ? now.plusSeconds(Math.max(0, reset)) : Instant.ofEpochSecond(reset);
                return Optional.of(at.isAfter(now) ? Duration.between(now, at) : Duration.ZERO);
            } catch (NumberFormatException | java.time.DateTimeException e) {
                return Optional.empty();
            }
        });
    }

    /**
     * A create (or other change) that did not answer 2xx. 5xx and anything unexpected are ambiguous (it may
     * have taken effect); "exists" only when the leaf said so.
     */
    LeafCallException changeFailure(String naturalKey, boolean saysExists) {
        if (saysExists) {
            return new ResourceExists(leaf, naturalKey, call + " -> " + status + ": '" + naturalKey + "' already exists");
        }
        Optional<Duration> throttled = throttledFor(Instant.now());
        if (throttled.isPresent()) {
            return throttled(throttled.get());
        }
        if (status == 408 || status == 409) {
            return new LeafRejected(leaf, call + " -> " + status, status, true, retryAfter().orElse(null), null);
        }
        if (status >= 400 && status < 500) {
            return new LeafRejected(leaf, call + " -> " + status + detail(), status, false);
        }
        return new AmbiguousOutcome(leaf, call + " -> " + status + ": it may have taken effect");
    }

    /** A read or delete that did not succeed: permanent only where retrying cannot help. */
    LeafRejected readFailure() {
        Optional<Duration> throttled = throttledFor(Instant.now());
        if (throttled.isPresent()) {
            return throttled(throttled.get());
        }
        boolean permanent = status == 400 || status == 401 || status == 403 || status == 405 || status == 422;
        return new LeafRejected(leaf, call + " -> " + status + detail(), status, !permanent, retryAfter().orElse(null),
                null);
    }

    /** A 2xx whose body is not what the leaf promises: for a change, the outcome is unknown (R4). */
    AmbiguousOutcome malformedChange(String what) {
        return new AmbiguousOutcome(leaf, call + " -> " + status + " but the body is not a valid answer (" + what
                + "); it may have taken effect");
    }

    /** A 2xx read we cannot parse: we know nothing yet. */
    LeafRejected malformedRead(String what) {
        return new LeafRejected(leaf, call + " -> " + status + " but the body is not a valid answer (" + what + ")",
                status, true);
    }

    private LeafThrottled throttled(Duration wait) {
        return new LeafThrottled(leaf, call + " -> " + status + " rate limited", status, wait);
    }

    /** The leaf's own message, if it gave a short one (never echoes request headers). */
    private String detail() {
        return json().map(node -> node.path("message").asText("")).filter(m -> !m.isBlank())
                .map(m -> ": " + (m.length() > 200 ? m.substring(0, 200) : m)).orElse("");
    }
}
