package dev.converge.proof.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * One request to the service's HTTP API, as the demo's and the chaos run's clients send it: the
 * tenant's bearer token, JSON in and out, an Idempotency-Key when given. It never retries; the
 * clients decide that, always with the same key.
 */
public final class ApiExchange {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** An answer: status (0 when none came), body, and whether the server said it was a replay. */
    public record Answer(int status, String body, boolean replayed) {
        /** The body as JSON; an empty object when it is not JSON. */
        public JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                return JSON.createObjectNode();
            }
        }

        /** The problem type of an error answer, or "". */
        public String problem() {
            return json().path("type").asText("");
        }
    }

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final String base;
    private final String token;

    public ApiExchange(String baseUrl, String token) {
        this.base = baseUrl;
        this.token = token;
    }

    /** Sends once; empty when no answer came (timeout, reset, refused), so the caller may resend with the same key. */
    public Optional<Answer> once(String method, String path, Object body, String key) throws InterruptedException {
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10))
                    .header("Authorization", "Bearer " + token).header("Accept", "application/json");
            if (key != null) {
                b.header("Idempotency-Key", key);
            }
            if (body != null) {
                b.header("Content-Type", "application/json")
                        .method(method, HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
            } else {
                b.method(method, HttpRequest.BodyPublishers.noBody());
            }
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return Optional.of(new Answer(r.statusCode(), r.body(),
                    r.headers().firstValue("Idempotency-Replayed").map("true"::equalsIgnoreCase).orElse(false)));
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
