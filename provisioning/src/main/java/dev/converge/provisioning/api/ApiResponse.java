package dev.converge.provisioning.api;

import dev.converge.provisioning.idempotency.StoredResponse;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A response as bytes-to-be: what a handler produces, what an idempotency key stores, and what a
 * replay sends again. The body is serialized once, so a replay is byte-identical to the original.
 */
record ApiResponse(int status, String body, Map<String, String> headers) {
    static final String JSON = "application/json";
    static final String PROBLEM_JSON = "application/problem+json";
    static final String CONTENT_TYPE = "Content-Type";

    ApiResponse {
        headers = Map.copyOf(headers);
    }

    static ApiResponse json(int status, String body, Map<String, String> extraHeaders) {
        Map<String, String> h = new LinkedHashMap<>(extraHeaders);
        h.put(CONTENT_TYPE, JSON);
        return new ApiResponse(status, body, h);
    }

    static ApiResponse of(StoredResponse stored) {
        return new ApiResponse(stored.status(), stored.body(), stored.headers());
    }

    StoredResponse stored() {
        return new StoredResponse(status, body, headers);
    }

    void send(Context ctx) {
        ctx.status(status);
        headers.forEach((name, value) -> {
            if (name.equalsIgnoreCase(CONTENT_TYPE)) {
                ctx.contentType(value);
            } else {
                ctx.header(name, value);
            }
        });
        ctx.result(body);
    }
}
