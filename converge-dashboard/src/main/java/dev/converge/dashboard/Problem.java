package dev.converge.dashboard;

/** A refusal the dashboard answers as an RFC 9457 problem: its status and a sentence for the person. */
final class Problem extends RuntimeException {
    private final int status;

    Problem(int status, String detail) {
        super(detail, null, false, false);
        this.status = status;
    }

    static Problem unauthorized(String detail) {
        return new Problem(401, detail);
    }

    /** A session's request without its CSRF token, or with one but no live session. */
    static Problem csrf(String detail) {
        return new Problem(403, detail);
    }

    int status() {
        return status;
    }

    String title() {
        return switch (status) {
            case 400 -> "Bad request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not found";
            case 415 -> "Unsupported media type";
            case 422 -> "Unprocessable content";
            case 503 -> "Service unavailable";
            default -> "Error";
        };
    }
}
