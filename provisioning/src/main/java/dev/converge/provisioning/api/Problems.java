package dev.converge.provisioning.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.provisioning.validation.InvalidField;
import dev.converge.store.StoreException;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.http.HttpStatus;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renders every failure as {@code application/problem+json} (RFC 9457) and maps what can go wrong
 * to its problem: validation errors name the field, framework errors keep their status, a database
 * that does not answer is a 503 the client may retry, and anything else is a 500 whose detail
 * says nothing about the internals (the log has the exception; no request header is logged).
 */
final class Problems {
    private static final Logger log = LoggerFactory.getLogger(Problems.class);

    private final ObjectMapper json;

    Problems(ObjectMapper json) {
        this.json = json;
    }

    void register(RoutesConfig routes) {
        routes.exception(ApiProblem.class, (e, ctx) -> send(ctx, e));
        routes.exception(InvalidField.class, (e, ctx) -> send(ctx, of(e)));
        routes.exception(HttpResponseException.class, (e, ctx) -> send(ctx, of(e)));
        routes.exception(StoreException.class, (e, ctx) -> send(ctx, of(ctx, e)));
        routes.exception(Exception.class, (e, ctx) -> {
            log.error("{} {} failed", HttpMetrics.method(ctx), HttpMetrics.route(ctx), e);
            send(ctx, new ApiProblem(ProblemType.INTERNAL_ERROR, "The request could not be completed. It may be retried."));
        });
    }

    static ApiProblem of(InvalidField e) {
        String detail = e.getMessage().startsWith(e.field() + " ")
                ? e.getMessage().substring(e.field().length() + 1) : e.getMessage();
        return ApiProblem.invalid(ProblemType.VALIDATION_FAILED, e.field(), detail);
    }

    private static ApiProblem of(HttpResponseException e) {
        return switch (e.getStatus()) {
            case 404 -> new ApiProblem(ProblemType.NOT_FOUND, "No such resource.");
            case 413 -> new ApiProblem(ProblemType.PAYLOAD_TOO_LARGE, "The request body is too large.");
            default -> ApiProblem.status(e.getStatus(), e.getMessage());
        };
    }

    private static ApiProblem of(Context ctx, StoreException e) {
        if (transientFailure(e)) {
            log.warn("{} {}: database unavailable: {}", HttpMetrics.method(ctx), HttpMetrics.route(ctx), e.getMessage());
            return new ApiProblem(ProblemType.SERVICE_UNAVAILABLE, "The database did not answer. Retry later.")
                    .header("Retry-After", "1");
        }
        log.error("{} {} failed", HttpMetrics.method(ctx), HttpMetrics.route(ctx), e);
        return new ApiProblem(ProblemType.INTERNAL_ERROR, "The request could not be completed. It may be retried.");
    }

    /** Connection lost, pool exhausted, lock timeout, serialization failure: worth retrying later. */
    private static boolean transientFailure(StoreException e) {
        String state = e.sqlState();
        if (state != null && (state.startsWith("08") || state.startsWith("40") || state.startsWith("57P")
                || state.equals("HYT00"))) {
            return true;
        }
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            if (t instanceof SQLTransientException || t instanceof SQLRecoverableException) {
                return true;
            }
        }
        return false;
    }

    /** The problem as a response: its JSON, its status and content type, and its headers. */
    ApiResponse response(ApiProblem p, String instance) {
        Map<String, Object> body = new LinkedHashMap<>();
        int status = p.status();
        body.put("type", p.type() == null ? "about:blank" : p.type().uri());
        body.put("title", p.type() == null ? HttpStatus.forStatus(status).getMessage() : p.type().title());
        body.put("status", status);
        body.put("detail", p.detail());
        body.put("instance", instance);
        body.putAll(p.extensions());
        Map<String, String> headers = new LinkedHashMap<>(p.headers());
        headers.put(ApiResponse.CONTENT_TYPE, ApiResponse.PROBLEM_JSON);
        try {
            return new ApiResponse(status, json.writeValueAsString(body), headers);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("problem does not serialize", e);
        }
    }

    void send(Context ctx, ApiProblem p) {
        response(p, ctx.path()).send(ctx);
    }
}
