package dev.converge.proof.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.leafsim.fault.FaultHit;
import dev.converge.leafsim.fault.FaultRule;
import dev.converge.leafsim.fault.FaultType;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The simulated leaves' control API, over HTTP: their faults and fault counters (and whether a URL answers). */
final class LeafControl {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final String base;

    LeafControl(String leafsimUrl) {
        this.base = leafsimUrl;
    }

    /** Seeds the fault decisions and adds the rules. */
    void installFaults(long seed, List<FaultRule> rules) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("seed", seed);
        body.put("rules", rules);
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/_control/faults"))
                    .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IllegalStateException("the leaves refused the fault rules: " + r.statusCode() + " " + r.body());
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot install faults at " + base + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    void clearFaults() {
        try {
            sendIdempotent(HttpRequest.newBuilder(URI.create(base + "/_control/faults")).timeout(Duration.ofSeconds(10))
                    .DELETE().build(), HttpResponse.BodyHandlers.discarding());
        } catch (IOException e) {
            throw new IllegalStateException("cannot clear faults at " + base + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    List<FaultHit> hits() {
        try {
            HttpResponse<String> r = sendIdempotent(HttpRequest.newBuilder(URI.create(base + "/_control/faults/hits"))
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
            List<FaultHit> out = new ArrayList<>();
            for (JsonNode h : JSON.readTree(r.body()).path("hits")) {
                out.add(new FaultHit(h.path("leaf").asText(), h.path("route").asText(),
                        FaultType.valueOf(h.path("type").asText().toUpperCase(java.util.Locale.ROOT)), h.path("hits").asLong()));
            }
            return out;
        } catch (IOException e) {
            throw new IllegalStateException("cannot read fault hits at " + base + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Sends a request that may be sent again, up to three times. A kept-alive connection the leaves' server
     * closed (its idle timeout) can fail the next request with no byte answered; the JDK client sends again only
     * GET and HEAD, and only once.
     */
    private static <T> HttpResponse<T> sendIdempotent(HttpRequest request, HttpResponse.BodyHandler<T> body)
            throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                return HTTP.send(request, body);
            } catch (IOException e) {
                if (attempt == 3) {
                    throw e;
                }
            }
        }
    }

    /** Whether {@code url} answers 200 right now (a readiness probe). */
    static boolean answers(String url) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).GET().build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
