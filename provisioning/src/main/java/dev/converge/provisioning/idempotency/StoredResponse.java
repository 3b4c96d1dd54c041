package dev.converge.provisioning.idempotency;

import java.util.Map;
import java.util.Objects;

/** A final response kept for an idempotency key and replayed byte for byte. */
public record StoredResponse(int status, String body, Map<String, String> headers) {
    public StoredResponse {
        Objects.requireNonNull(body, "body");
        headers = headers == null ? Map.of() : Map.copyOf(headers);
    }
}
