package dev.converge.provisioning.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A real HTTP client for the API under test (java.net.http, HTTP/1.1). */
public final class ApiClient {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    public ApiClient(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    /** An answer: status, body as text, headers; {@link #json()} parses the body. */
    public record Reply(int status, String body, HttpHeaders headers) {
        public JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException("not JSON: " + body, e);
            }
        }

        public String header(String name) {
            return headers.firstValue(name).orElse(null);
        }

        /** The problem type's slug, e.g. {@code subdomain-taken}. */
        public String problem() {
            return json().path("type").asText().replace(ProblemType.BASE, "");
        }

        @Override
        public String toString() {
            return status + " " + body;
        }
    }

    public HttpRequest.Builder request(String path, String token) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return b;
    }

    public Reply get(String path, String token) {
        return send(request(path, token).GET());
    }

    public Reply delete(String path, String token) {
        return send(request(path, token).DELETE());
    }

    public Reply post(String path, String token, String body) {
        return send(request(path, token).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    /** A POST of {@code /v1/sites} with an Idempotency-Key (none when {@code key} is null). */
    public Reply postSite(String token, String key, String body) {
        HttpRequest.Builder b = request("/v1/sites", token).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            b.header("Idempotency-Key", key);
        }
        return send(b);
    }

    public Reply send(HttpRequest.Builder b) {
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Reply(r.statusCode(), r.body(), r.headers());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
