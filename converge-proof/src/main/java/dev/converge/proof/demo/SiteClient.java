package dev.converge.proof.demo;

import dev.converge.proof.demo.ApiExchange.Answer;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A careful client of the service's HTTP API, as a real one would be: every site request carries
 * an Idempotency-Key, and a timeout or a 5xx is retried with the same key (never a new one), so
 * the request is made at most once however often it is sent.
 */
public final class SiteClient {
    private final ApiExchange api;
    final AtomicLong requests = new AtomicLong();
    final AtomicLong retries = new AtomicLong();
    final AtomicLong replays = new AtomicLong();

    public SiteClient(String baseUrl, String token) {
        this.api = new ApiExchange(baseUrl, token);
    }

    public Answer createLead(String name, String email) throws InterruptedException {
        return send("POST", "/v1/leads", Map.of("name", name, "email", email), null);
    }

    /** Requests a site with this key, retrying timeouts and 5xx with the same key. */
    public Answer requestSite(String key, String leadId, String subdomain) throws InterruptedException {
        return send("POST", "/v1/sites", Map.of("lead_id", leadId, "subdomain", subdomain), key);
    }

    public Answer getSite(String id) throws InterruptedException {
        return send("GET", "/v1/sites/" + id, null, null);
    }

    /** Subscribes the site (safe to repeat: the answer is the same). */
    public Answer subscribe(String id) throws InterruptedException {
        return send("POST", "/v1/sites/" + id + "/subscription", null, null);
    }

    /** A person's retry of the site (this client's token must be an approver's). */
    public Answer retrySite(String id, String reason) throws InterruptedException {
        return send("POST", "/v1/sites/" + id + "/retries", Map.of("reason", reason), null);
    }

    public Answer deleteSite(String id) throws InterruptedException {
        return send("DELETE", "/v1/sites/" + id, null, null);
    }

    private Answer send(String method, String path, Object body, String key) throws InterruptedException {
        long backoff = 100;
        for (int attempt = 1; ; attempt++) {
            requests.incrementAndGet();
            Optional<Answer> a = api.once(method, path, body, key);
            if (a.isPresent()) {
                Answer answer = a.get();
                boolean retry = answer.status() >= 500 || answer.status() == 409 && inFlight(answer);
                if (!retry || attempt >= 8) {
                    if (answer.replayed()) {
                        replays.incrementAndGet();
                    }
                    return answer;
                }
            } else if (attempt >= 8) {
                return new Answer(0, "{\"detail\": \"no answer after " + attempt + " attempts\"}", false);
            }
            retries.incrementAndGet();
            Thread.sleep(backoff);
            backoff = Math.min(2000, backoff * 2);
        }
    }

    /** A 409 meaning "the same key is still in flight" is worth waiting for; other 409s are answers. */
    private static boolean inFlight(Answer a) {
        return a.body().contains("in-flight") || a.body().contains("in_flight") || a.body().contains("in flight");
    }
}
