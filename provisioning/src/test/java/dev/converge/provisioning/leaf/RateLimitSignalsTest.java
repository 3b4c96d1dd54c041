package dev.converge.provisioning.leaf;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How a leaf's rate-limit signals become a wait: Retry-After first, then the reset time, then a minute. */
class RateLimitSignalsTest {
    static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");

    private static LeafReply reply(int status, Map<String, String> headers, String body) {
        Map<String, List<String>> all = new java.util.HashMap<>();
        headers.forEach((k, v) -> all.put(k, List.of(v)));
        return new LeafReply("githost", "GET /x", status, HttpHeaders.of(all, (a, b) -> true), body);
    }

    @Test
    void retryAfterInSecondsOrAsAnHttpDateIsTheWait() {
        assertThat(reply(429, Map.of("Retry-After", "7"), "").throttledFor(NOW)).hasValue(Duration.ofSeconds(7));
        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(NOW.plusSeconds(90).atOffset(ZoneOffset.UTC));
        assertThat(reply(429, Map.of("Retry-After", date), "").throttledFor(NOW)).hasValue(Duration.ofSeconds(90));
    }

    @Test
    void anExhaustedPrimaryLimitWaitsUntilItsResetInEpochSecondsOrSecondsFromNow() {
        long reset = NOW.getEpochSecond() + 600;
        assertThat(reply(403, Map.of("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", Long.toString(reset)), "")
                .throttledFor(NOW)).hasValue(Duration.ofMinutes(10));
        assertThat(reply(429, Map.of("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "45"), "").throttledFor(NOW))
                .hasValue(Duration.ofSeconds(45));
    }

    @Test
    void aSecondaryLimitWithoutHeadersWaitsAMinuteAndWaitsAreBounded() {
        assertThat(reply(403, Map.of(), "{\"message\":\"You have exceeded a secondary rate limit.\"}").throttledFor(NOW))
                .hasValue(Duration.ofSeconds(60));
        assertThat(reply(429, Map.of("Retry-After", "0"), "").throttledFor(NOW)).hasValue(Duration.ofSeconds(1));
        assertThat(reply(429, Map.of("Retry-After", "86400"), "").throttledFor(NOW)).hasValue(LeafReply.MAX_THROTTLE);
    }

    @Test
    void aForbiddenWithoutAnyRateLimitSignIsNotThrottled() {
        assertThat(reply(403, Map.of("X-RateLimit-Remaining", "4999"), "{\"message\":\"Resource not accessible\"}")
                .throttledFor(NOW)).isEmpty();
        assertThat(reply(503, Map.of("Retry-After", "5"), "").throttledFor(NOW)).isEmpty();
        assertThat(reply(403, Map.of("X-RateLimit-Remaining", "4999"), "{\"message\":\"Resource not accessible\"}")
                .readFailure()).isNotInstanceOf(LeafThrottled.class).satisfies(r -> assertThat(r.isTransient()).isFalse());
    }
}
