package dev.converge.proof.chaos;

import dev.converge.proof.demo.ApiExchange.Answer;
import dev.converge.proof.demo.ApiExchange;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The chaos run's client, careful as a real one would be while servers die under it: a timeout,
 * a reset, a refused connection, a 5xx, a 429 or a "still in flight" 409 is retried with the
 * same Idempotency-Key (never a new one), backing off, for as long as its patience lasts.
 */
final class ChaosClient {
    private final ApiExchange api;
    private final Duration patience;
    final AtomicLong requests = new AtomicLong();
    final AtomicLong retries = new AtomicLong();
    final AtomicLong gaveUp = new AtomicLong();

    ChaosClient(String baseUrl, String token, Duration patience) {
        this.api = new ApiExchange(baseUrl, token);
        this.patience = patience;
    }

    Answer send(String method, String path, Object body, String key) throws InterruptedException {
        long end = System.nanoTime() + patience.toNanos();
        long backoff = 100;
        while (true) {
            requests.incrementAndGet();
            Optional<Answer> a = api.once(method, path, body, key);
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
}
