package dev.converge.examples.orders;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.ledger.AmbiguousOutcome;
import dev.converge.ledger.LeafCallException;
import dev.converge.ledger.LeafRejected;
import dev.converge.ledger.ResourceExists;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/**
 * A strict HTTP client for a leaf service: it never guesses (R4). No answer, a 5xx or a 2xx it
 * cannot read is ambiguous (the call may have taken effect); 409 means the key is taken; any
 * other 4xx is a definitive no. A 404 is returned as null for the caller to interpret.
 */
final class LeafHttp {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String leaf;
    private final String baseUrl;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    LeafHttp(String leaf, String baseUrl) {
        this.leaf = leaf;
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    }

    JsonNode post(String path, Map<String, Object> body, String idempotencyKey) throws LeafCallException {
        HttpRequest.Builder b = request(path).header("Content-Type", "application/json");
        if (idempotencyKey != null) {
            b.header("Idempotency-Key", idempotencyKey);
        }
        try {
            return send("POST " + path, b.POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write the request body", e);
        }
    }

    JsonNode get(String path) throws LeafCallException {
        return send("GET " + path, request(path).GET().build());
    }

    void delete(String path) throws LeafCallException {
        send("DELETE " + path, request(path).DELETE().build()); // 404: already gone, which is success (R2)
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(5));
    }

    private JsonNode send(String what, HttpRequest request) throws LeafCallException {
        HttpResponse<String> r;
        try {
            r = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AmbiguousOutcome(leaf, what + ": no answer (" + e.getClass().getSimpleName() + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AmbiguousOutcome(leaf, what + ": interrupted", e);
        }
        int status = r.statusCode();
        if (status == 404) {
            return null;
        }
        if (status == 409) {
            throw new ResourceExists(leaf, what, what + ": already exists");
        }
        if (status >= 500) {
            throw new AmbiguousOutcome(leaf, what + ": " + status);
        }
        if (status >= 400) {
            throw new LeafRejected(leaf, what + ": " + status, status, status == 429);
        }
        if (status == 204) {
            return JSON.createObjectNode();
        }
        try {
            JsonNode body = JSON.readTree(r.body());
            if (body == null || !body.isObject()) {
                throw new AmbiguousOutcome(leaf, what + ": " + status + " without a readable body");
            }
            return body;
        } catch (IOException e) {
            throw new AmbiguousOutcome(leaf, what + ": " + status + " with a body that is not JSON", e);
        }
    }
}
