package dev.converge.provisioning.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The chaos run's client, careful as a real one would be while servers die under it: a timeout,
 * a reset, a refused connection, a 5xx, a 429 or a "still in flight" 409 is retried with the
 * same Idempotency-Key (never a new one), backing off, for as long as its patience lasts.
 */
final class ChaosClient {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** An answer; status 0 when none came before the client's patience ran out. */
    record Answer(int status, String body, boolean replayed) {
        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                return JSON.createObjectNode();
            }
        }

        String problem() {
            return json().path("type").asText("");
        }
    }

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final String base;
    private final String token;
    private final Duration patience;
    final AtomicLong requests = new AtomicLong();
    final AtomicLong retries = new AtomicLong();
    final AtomicLong gaveUp = new AtomicLong();

    ChaosClient(String baseUrl, String token, Duration patience) {
        this.base = baseUrl;
        this.token = token;
        this.patience = patience;
    }

    Answer send(String method, String path, Object body, String key) throws InterruptedException {
        long end = System.nanoTime() + patience.toNanos();
        long backoff = 100;
        while (true) {
            requests.incrementAndGet();
            Optional<Answer> a = once(method, path, body, key);
            if (a.isPresent() && !worthRetrying(a.get())) {
                return a.get();
            }
            if (System.nanoTime() + backoff * 1_000_000 > end) {
                gaveUp.incrementAndGet();
                return a.orElse(new Answer(0, "{\"detail\": \"no answer within the client's patience\"}", false));
            }
            retries.incrementAndGet();
            Thread.sleep(backoff);
            backoff = Math.min(2000, backoff * 2);
        }
    }

    /** Server errors, throttling, and a 409 that means "the same request is still running" or "try again". */
    private static boolean worthRetrying(Answer a) {
        if (a.status() >= 500 || a.status() == 429) {
            return true;
        }
        if (a.status() == 409) {
            String type = a.problem();
            return type.endsWith("idempotency-key-in-flight") || type.endsWith("site-busy");
        }
        return false;
    }

    private Optional<Answer> once(String method, String path, Object body, String key) throws InterruptedException {
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
            return Optional.empty(); // timeout, reset, refused: the same request again, same key
        }
    }
}
