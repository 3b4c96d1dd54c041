package dev.converge.provisioning.api;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An answer that is a problem (RFC 9457), thrown by a handler and rendered as
 * {@code application/problem+json}. Carries no stack trace: it is an answer, not a fault.
 */
final class ApiProblem extends RuntimeException {
    private final ProblemType type;
    private final int status;
    private final String detail;
    private final Map<String, Object> extensions = new LinkedHashMap<>();
    private final Map<String, String> headers = new LinkedHashMap<>();

    ApiProblem(ProblemType type, String detail) {
        this(type, type.status(), detail);
    }

    private ApiProblem(ProblemType type, int status, String detail) {
        super((type == null ? "about:blank" : type.uri()) + ": " + detail, null, false, false);
        this.type = type;
        this.status = status;
        this.detail = detail;
    }

    /** A status with no problem type of ours ({@code about:blank}, titled by the status). */
    static ApiProblem status(int status, String detail) {
        return new ApiProblem(null, status, detail);
    }

    /** A validation problem naming the first offending field, with every error listed. */
    static ApiProblem invalid(ProblemType type, List<FieldError> errors) {
        FieldError first = errors.get(0);
        String detail = errors.size() == 1 ? first.field() + " " + first.detail()
                : errors.size() + " fields are invalid; the first: " + first.field() + " " + first.detail();
        return new ApiProblem(type, detail).with("field", first.field()).with("errors", List.copyOf(errors));
    }

    static ApiProblem invalid(ProblemType type, String field, String detail) {
        return invalid(type, List.of(new FieldError(field, detail)));
    }

    ApiProblem with(String name, Object value) {
        extensions.put(name, value);
        return this;
    }

    ApiProblem header(String name, String value) {
        headers.put(name, value);
        return this;
    }

    /** Null for an {@code about:blank} problem. */
    ProblemType type() {
        return type;
    }

    int status() {
        return status;
    }

    String detail() {
        return detail;
    }

    Map<String, Object> extensions() {
        return extensions;
    }

    Map<String, String> headers() {
        return headers;
    }

    /** One invalid field (or parameter, or header) and what is wrong with it. */
    record FieldError(String field, String detail) {
    }
}
