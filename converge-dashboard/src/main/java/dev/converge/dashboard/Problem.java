package dev.converge.dashboard;

/**
 * A refusal the dashboard answers as an RFC 9457 problem: its status, a type under
 * {@code https://converge.dev/problems/} a client can switch on (the same types Converge's other
 * HTTP surfaces use), and a sentence for the person.
 */
final class Problem extends RuntimeException {
    static final String TYPES = "https://converge.dev/problems/";

    private final int status;
    private final String type;

    Problem(int status, String detail) {
        this(status, switch (status) {
            case 400 -> "invalid-parameter";
            case 401 -> "unauthorized";
            case 403 -> "csrf-token";
            case 404 -> "not-found";
            case 415 -> "unsupported-media-type";
            case 422 -> "validation-failed";
            case 503 -> "service-unavailable";
            default -> "internal";
        }, detail);
    }

    Problem(int status, String type, String detail) {
        super(detail, null, false, false);
        this.status = status;
        this.type = type;
    }

    static Problem unauthorized(String detail) {
        return new Problem(401, detail);
    }

    /** A session's request without its CSRF token, or with one but no live session. */
    static Problem csrf(String detail) {
        return new Problem(403, "csrf-token", detail);
    }

    int status() {
        return status;
    }

    String type() {
        return TYPES + type;
    }

    String title() {
        return switch (status) {
            case 400 -> "Bad request";
            case 401 -> "Unauthorized";
            case 403 -> "Missing or invalid CSRF token";
            case 404 -> "Not found";
            case 415 -> "Unsupported media type";
            case 422 -> "Unprocessable content";
            case 503 -> "Service unavailable";
            default -> "Error";
        };
    }
}
