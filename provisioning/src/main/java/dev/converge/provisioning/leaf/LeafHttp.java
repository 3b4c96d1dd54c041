package dev.converge.provisioning.leaf;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.ledger.AmbiguousOutcome;
import dev.converge.ledger.LeafCallException;
import dev.converge.ledger.LeafRejected;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place a driver's HTTP call is made and its transport failure classified. A failure
 * before anything was sent (connection refused, connect timeout) is a transient rejection; a
 * failure after the request may have been sent (request timeout, reset, EOF) is ambiguous for a
 * call that changes the leaf and a transient rejection for one that does not. Redirects are never
 * followed (a POST replayed elsewhere is a second create). The JDK client retries a GET once after
 * a connection failure, which is harmless for a read, and never retries a POST or DELETE.
 * Only method, path, status and timing are logged: never headers, so never the token.
 */
final class LeafHttp {
    private static final Logger log = LoggerFactory.getLogger(LeafHttp.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Whether an unknown outcome may have changed the leaf. */
    enum Effect { READS, CHANGES }

    private final String leaf;
    private final HttpLeafConfig config;
    private final HttpClient client;
    private final Map<String, String> defaultHeaders;

    LeafHttp(String leaf, HttpLeafConfig config) {
        this(leaf, config, Map.of());
    }

    /**
     * @param defaultHeaders what the leaf's real API asks every request to carry (e.g. the git
     *                       host's media type and API version); they replace the generic ones
     */
    LeafHttp(String leaf, HttpLeafConfig config, Map<String, String> defaultHeaders) {
        refuseJdkHeaderLogging(System.getProperty("jdk.httpclient.HttpClient.log"));
        this.leaf = leaf;
        this.config = config;
        this.defaultHeaders = Map.copyOf(defaultHeaders);
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(config.connectTimeout()).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    String leaf() {
        return leaf;
    }

    /**
     * The JDK client's own wire log ({@code -Djdk.httpclient.HttpClient.log=headers} or {@code all})
     * prints request headers verbatim, bearer token included. Refuse to run a driver with it on.
     */
    static void refuseJdkHeaderLogging(String setting) {
        if (setting == null) {
            return;
        }
        for (String part : setting.toLowerCase(java.util.Locale.ROOT).split(",")) {
            String item = part.trim();
            if (item.equals("headers") || item.equals("all")) {
                throw new IllegalStateException("jdk.httpclient.HttpClient.log=" + setting
                        + " would log leaf tokens; use errors,requests instead");
            }
        }
    }

    LeafReply get(String path, Effect effect) {
        return send("GET", path, null, Map.of(), effect);
    }

    /**
     * Follows a next-page link the leaf gave (absolute, or relative to the leaf's host). The link is
     * followed only if it stays under the configured base URL: the bearer token goes with it, so a
     * link elsewhere is refused, never followed.
     */
    LeafReply follow(String link) {
        URI base = config.baseUrl();
        URI target;
        try {
            // providers write JSON:API page parameters unencoded (page[cursor]=...), which java.net.URI refuses
            target = base.resolve(link.trim().replace("[", "%5B").replace("]", "%5D").replace(" ", "%20"));
        } catch (IllegalArgumentException e) {
            throw new LeafRejected(leaf, "GET: the next-page link is not a URL", 0, false);
        }
        String basePath = base.getRawPath() == null ? "" : base.getRawPath();
        String targetPath = target.getRawPath() == null ? "" : target.getRawPath();
        boolean sameOrigin = base.getScheme().equalsIgnoreCase(String.valueOf(target.getScheme()))
                && base.getHost().equalsIgnoreCase(String.valueOf(target.getHost())) && port(base) == port(target);
        if (!sameOrigin || target.getRawUserInfo() != null || !(targetPath.equals(basePath)
                || targetPath.startsWith(basePath + "/"))) {
            throw new LeafRejected(leaf, "GET: the next-page link leaves " + base + "; not followed", 0, false);
        }
        String relative = targetPath.substring(basePath.length())
                + (target.getRawQuery() == null ? "" : "?" + target.getRawQuery());
        return get(relative, Effect.READS);
    }

    private static int port(URI uri) {
        return uri.getPort() != -1 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
    }

    LeafReply delete(String path) {
        return send("DELETE", path, null, Map.of(), Effect.READS);
    }

    LeafReply post(String path, Object body, Map<String, String> headers) {
        return send("POST", path, body, headers, Effect.CHANGES);
    }

    private LeafReply send(String method, String path, Object body, Map<String, String> headers, Effect effect) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(config.baseUrl() + path))
                .timeout(config.requestTimeout())
                .header("Authorization", "Bearer " + config.token().reveal())
                .header("Accept", "application/json");
        defaultHeaders.forEach(request::setHeader);
        headers.forEach(request::setHeader);
        // the calling span's W3C traceparent (the engine's leaf-call span), so the leaf's own spans join our trace
        dev.converge.provisioning.trace.ServiceTracing.inject(request::setHeader);
        if (body == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json(body)));
        }
        String call = method + " " + path;
        long started = System.nanoTime();
        try {
            HttpResponse<String> response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
            log.debug("{} {} -> {} in {} ms", leaf, call, response.statusCode(), (System.nanoTime() - started) / 1_000_000);
            return new LeafReply(leaf, call, response.statusCode(), response.headers(), response.body());
        } catch (HttpConnectTimeoutException e) {
            throw notSent(call + ": connect timed out after " + config.connectTimeout(), e);
        } catch (ConnectException e) {
            throw notSent(call + ": could not connect", e);
        } catch (HttpTimeoutException e) {
            throw maybeSent(effect, call + ": no answer within " + config.requestTimeout(), e);
        } catch (IOException e) {
            throw maybeSent(effect, call + ": connection failed before an answer (" + e.getClass().getSimpleName() + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw maybeSent(effect, call + ": interrupted while waiting for the answer", e);
        }
    }

    private LeafRejected notSent(String message, Exception cause) {
        log.debug("{} {} (nothing was sent)", leaf, message);
        return new LeafRejected(leaf, message, 0, true, null, cause);
    }

    private LeafCallException maybeSent(Effect effect, String message, Exception cause) {
        log.debug("{} {} ({})", leaf, message, effect == Effect.CHANGES ? "outcome unknown" : "read failed");
        return effect == Effect.CHANGES ? new AmbiguousOutcome(leaf, message, cause)
                : new LeafRejected(leaf, message, 0, true, null, cause);
    }

    private static String json(Object body) {
        try {
            return JSON.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("request body is not serialisable", e);
        }
    }
}
