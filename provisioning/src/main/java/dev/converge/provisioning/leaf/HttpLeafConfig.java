package dev.converge.provisioning.leaf;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * Where an HTTP leaf lives and how long a driver waits for it. Every call has both a connect
 * timeout and a per-request timeout: a hung leaf must cost a bounded wait, never a stuck worker.
 *
 * @param baseUrl e.g. {@code http://127.0.0.1:8089/license}; no trailing slash needed
 */
public record HttpLeafConfig(URI baseUrl, ApiToken token, Duration connectTimeout, Duration requestTimeout) {
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);

    public HttpLeafConfig {
        Objects.requireNonNull(baseUrl, "baseUrl");
        Objects.requireNonNull(token, "token");
        String scheme = baseUrl.getScheme();
        if (!"http".equals(scheme) && !"https".equals(scheme) || baseUrl.getHost() == null) {
            throw new IllegalArgumentException("baseUrl must be an absolute http(s) URL: " + baseUrl);
        }
        if (baseUrl.getRawUserInfo() != null || baseUrl.getRawQuery() != null) {
            throw new IllegalArgumentException("baseUrl must carry no credentials or query");
        }
        requirePositive(connectTimeout, "connectTimeout");
        requirePositive(requestTimeout, "requestTimeout");
        String url = baseUrl.toString();
        baseUrl = URI.create(url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
    }

    public static HttpLeafConfig of(String baseUrl, ApiToken token) {
        return new HttpLeafConfig(URI.create(baseUrl), token, DEFAULT_CONNECT_TIMEOUT, DEFAULT_REQUEST_TIMEOUT);
    }

    public HttpLeafConfig withTimeouts(Duration connect, Duration request) {
        return new HttpLeafConfig(baseUrl, token, connect, request);
    }

    private static void requirePositive(Duration d, String name) {
        if (d == null || d.isNegative() || d.isZero() || d.compareTo(Duration.ofMinutes(10)) > 0) {
            throw new IllegalArgumentException(name + " must be within (0, 10 minutes]: " + d);
        }
    }
}
