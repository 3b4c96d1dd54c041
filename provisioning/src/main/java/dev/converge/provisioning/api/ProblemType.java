package dev.converge.provisioning.api;

/**
 * The API's RFC 9457 problem types: stable URIs a client can switch on, each with its status.
 * Listed in {@code openapi.json}; changing a slug breaks clients.
 */
public enum ProblemType {
    UNAUTHORIZED("unauthorized", 401, "Missing or invalid bearer token"),
    INSUFFICIENT_SCOPE("insufficient-scope", 403, "The token's scope does not allow this"),
    CSRF("csrf-token", 403, "Missing or invalid CSRF token"),
    NOT_FOUND("not-found", 404, "Not found"),
    MALFORMED_JSON("malformed-json", 400, "Malformed JSON"),
    INVALID_BODY("invalid-body", 400, "The request body must be a JSON object"),
    INVALID_PARAMETER("invalid-parameter", 400, "Invalid parameter"),
    IDEMPOTENCY_KEY_MISSING("idempotency-key-missing", 400, "Idempotency-Key header required"),
    IDEMPOTENCY_KEY_INVALID("idempotency-key-invalid", 400, "Invalid Idempotency-Key header"),
    IDEMPOTENCY_KEY_IN_FLIGHT("idempotency-key-in-flight", 409, "A request with this Idempotency-Key is in progress"),
    IDEMPOTENCY_KEY_REUSED("idempotency-key-reused", 422, "Idempotency-Key already used for a different request"),
    VALIDATION_FAILED("validation-failed", 422, "Invalid request"),
    SUBDOMAIN_TAKEN("subdomain-taken", 409, "Subdomain already taken"),
    SITE_BUSY("site-busy", 409, "The site changed while the request ran"),
    NOT_SUBSCRIBABLE("not-subscribable", 409, "The site's trial no longer runs"),
    TURN_RUNNING("turn-running", 409, "A turn of this conversation is still running"),
    PAYLOAD_TOO_LARGE("payload-too-large", 413, "Request body too large"),
    UNSUPPORTED_MEDIA_TYPE("unsupported-media-type", 415, "Unsupported media type"),
    RATE_LIMITED("rate-limited", 429, "Too many requests"),
    QUOTA_EXCEEDED("quota-exceeded", 429, "The tenant's quota is used up"),
    SERVICE_UNAVAILABLE("service-unavailable", 503, "Service temporarily unavailable"),
    INTERNAL_ERROR("internal-error", 500, "Internal error");

    public static final String BASE = "https://converge.dev/problems/";

    private final String slug;
    private final int status;
    private final String title;

    ProblemType(String slug, int status, String title) {
        this.slug = slug;
        this.status = status;
        this.title = title;
    }

    public String uri() {
        return BASE + slug;
    }

    public int status() {
        return status;
    }

    public String title() {
        return title;
    }
}
