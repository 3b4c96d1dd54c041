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

    /** Retry-After in seconds (the HTTP-date form is not used by our leaves and is ignored). */
    Optional<Duration> retryAfter() {
        return headers.firstValue("Retry-After").flatMap(value -> {
            try {
                return Optional.of(Duration.ofSeconds(Math.max(0, Long.parseLong(value.trim()))));
            } catch (NumberFormatException e) {
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
        if (status == 429) {
            return throttled();
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
        if (status == 429) {
            return throttled();
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

    private LeafRejected throttled() {
        return new LeafRejected(leaf, call + " -> 429 throttled", 429, true, retryAfter().orElse(null), null);
    }

    /** The leaf's own message, if it gave a short one (never echoes request headers). */
    private String detail() {
        return json().map(node -> node.path("message").asText("")).filter(m -> !m.isBlank())
                .map(m -> ": " + (m.length() > 200 ? m.substring(0, 200) : m)).orElse("");
    }
}
