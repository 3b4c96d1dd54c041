package dev.converge.provisioning.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.converge.provisioning.idempotency.ClaimOutcome;
import dev.converge.provisioning.idempotency.IdempotencyKey;
import dev.converge.provisioning.idempotency.IdempotencyStore;
import dev.converge.provisioning.idempotency.RequestFingerprint;
import dev.converge.provisioning.validation.InvalidField;
import io.javalin.http.Context;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code Idempotency-Key} protocol of draft-ietf-httpapi-idempotency-key-header around a
 * handler: claim the key for the request's fingerprint, do the work once, store the final answer
 * and replay it to every retry. What is final for a key is any answer below 500 (the receipt, a
 * taken subdomain, a validation error); a 5xx gives the key back so the client may retry it.
 */
final class IdempotentRequests {
    static final String REPLAYED = "Idempotency-Replayed";
    private static final Logger log = LoggerFactory.getLogger(IdempotentRequests.class);

    private final IdempotencyStore store;
    private final ObjectMapper json;
    private final Problems problems;
    private final Duration ttl;
    private final Duration inFlightTimeout;

    IdempotentRequests(IdempotencyStore store, ObjectMapper json, Problems problems, Duration ttl,
            Duration inFlightTimeout) {
        this.store = store;
        this.json = json;
        this.problems = problems;
        this.ttl = ttl;
        this.inFlightTimeout = inFlightTimeout;
    }

    /** The request's key; 400 when it is invalid, or missing and required. */
    Optional<IdempotencyKey> key(Context ctx, boolean required) {
        Optional<IdempotencyKey> key;
        try {
            key = IdempotencyKey.parse(ctx.header(IdempotencyKey.HEADER));
        } catch (IllegalArgumentException e) {
            throw ApiProblem.invalid(ProblemType.IDEMPOTENCY_KEY_INVALID, IdempotencyKey.HEADER, e.getMessage());
        }
        if (key.isEmpty() && required) {
            throw ApiProblem.invalid(ProblemType.IDEMPOTENCY_KEY_MISSING, IdempotencyKey.HEADER,
                    "is required: send a unique key (e.g. a UUID) per intended request, and the same key on retries")
                    .with("links", Map.of("documentation", OpsRoutes.OPENAPI));
        }
        return key;
    }

    /**
     * Answers the request once per key: the work's answer the first time, the stored answer on
     * every retry with the same body, 409 while the first is still running, 422 for another body.
     */
    ApiResponse run(Context ctx, long tenantId, Optional<IdempotencyKey> key, String operation, ObjectNode body,
            Supplier<ApiResponse> work) {
        if (key.isEmpty()) {
            return answer(ctx, work);
        }
        IdempotencyKey k = key.get();
        ClaimOutcome claim = store.claim(tenantId, k, RequestFingerprint.of(json, operation, body), ttl, inFlightTimeout);
        if (claim instanceof ClaimOutcome.Replay replay) {
            Map<String, String> headers = new LinkedHashMap<>(replay.response().headers());
            headers.put(REPLAYED, "true");
            return new ApiResponse(replay.response().status(), replay.response().body(), headers);
        }
        if (claim instanceof ClaimOutcome.InFlight) {
            throw new ApiProblem(ProblemType.IDEMPOTENCY_KEY_IN_FLIGHT,
                    "A request with this Idempotency-Key is still being processed. Retry shortly to get its answer.")
                    .header("Retry-After", "1");
        }
        if (claim instanceof ClaimOutcome.Mismatch) {
            throw new ApiProblem(ProblemType.IDEMPOTENCY_KEY_REUSED,
                    "This Idempotency-Key was used for a different request. Use a new key for a new request.");
        }
        ApiResponse answer;
        try {
            answer = answer(ctx, work);
        } catch (RuntimeException e) {
            releaseQuietly(tenantId, k, e);
            throw e;
        }
        if (answer.status() >= 500 || answer.status() == 429) {
            // not an answer to this request but "later": the same request may be sent again under its key
            releaseQuietly(tenantId, k, null);
        } else {
            complete(tenantId, k, answer);
        }
        return answer;
    }

    /**
     * Stores the final answer. If that fails the work still happened, so the client gets its answer;
     * the claim stays in flight until presumed abandoned, and a retry then meets the work's own
     * constraint (a site request: "subdomain taken", with the link to the site).
     */
    private void complete(long tenantId, IdempotencyKey key, ApiResponse answer) {
        try {
            if (!store.complete(tenantId, key, answer.stored())) {
                log.warn("an idempotency claim was taken over before its answer was stored (tenant {})", tenantId);
            }
        } catch (RuntimeException e) {
            log.warn("could not store the answer of an idempotent request (tenant {}): {}", tenantId, e.getMessage());
        }
    }

    /** The work's answer, with the problems it raises turned into answers (so they can be stored). */
    private ApiResponse answer(Context ctx, Supplier<ApiResponse> work) {
        try {
            return work.get();
        } catch (ApiProblem p) {
            return problems.response(p, ctx.path());
        } catch (InvalidField e) {
            return problems.response(Problems.of(e), ctx.path());
        }
    }

    private void releaseQuietly(long tenantId, IdempotencyKey key, RuntimeException cause) {
        try {
            store.release(tenantId, key);
        } catch (RuntimeException e) {
            if (cause != null) {
                cause.addSuppressed(e);
            } else {
                log.warn("could not release an idempotency key after a failed request (tenant {}): {}", tenantId,
                        e.getMessage());
            }
        }
    }
}
