package dev.converge.provisioning.api;

import java.time.Duration;
import java.util.Objects;

/**
 * How the API server listens. Validated when built.
 *
 * @param host             the address to bind (127.0.0.1 by default: put a proxy in front to expose it)
 * @param port             0 for a free port
 * @param maxBodyBytes     a larger request body is answered 413
 * @param inFlightTimeout  an {@code Idempotency-Key} claim unfinished after this is presumed abandoned
 *                         (its server died) and may be taken over by a retry
 * @param maxConnections   connections open at once; while at the limit the server accepts no more, so
 *                         new ones wait in the kernel's listen backlog (and are refused by the kernel
 *                         once that is full) until one closes
 * @param requestQueue     requests waiting for a worker thread; beyond it a request is refused at once
 *                         (the connection is closed) instead of growing the heap
 * @param idleTimeout      a connection that sends nothing for this long is closed (slow clients, idle
 *                         keep-alives that hold a connection slot)
 * @param addressShare     the percentage of {@code maxConnections} one client address may hold at once
 *                         (at least one connection); a connection beyond it is closed as soon as it
 *                         opens. Behind a reverse proxy every connection comes from the proxy: set 100
 * @param requestDeadline  a request's headers and body must arrive within this time once its first
 *                         byte has; a client that trickles them (and so never trips the idle timeout)
 *                         is closed between one and one and a half deadlines after it began
 * @param authFailuresPerMinute requests from one client address that may fail authentication within a
 *                         minute; beyond it the address is answered 429 before its token is looked at
 */
public record ApiOptions(String host, int port, int maxBodyBytes, Duration inFlightTimeout,
        int maxConnections, int requestQueue, Duration idleTimeout, int addressShare, Duration requestDeadline,
        int authFailuresPerMinute) {
    public static final int DEFAULT_MAX_BODY_BYTES = 16 * 1024;
    public static final int DEFAULT_MAX_CONNECTIONS = 2_000;
    public static final int DEFAULT_REQUEST_QUEUE = 2_000;
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(30);
    public static final int DEFAULT_ADDRESS_SHARE = 10;
    public static final Duration DEFAULT_REQUEST_DEADLINE = Duration.ofSeconds(10);
    public static final int DEFAULT_AUTH_FAILURES_PER_MINUTE = AuthFailures.DEFAULT_PER_MINUTE;

    public ApiOptions {
        Objects.requireNonNull(host, "host");
        if (host.isBlank()) {
            throw new IllegalArgumentException("host must not be blank");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be between 0 and 65535");
        }
        if (maxBodyBytes < 256 || maxBodyBytes > 16 * 1024 * 1024) {
            throw new IllegalArgumentException("maxBodyBytes must be between 256 bytes and 16 MiB");
        }
        if (inFlightTimeout == null || inFlightTimeout.isNegative() || inFlightTimeout.isZero()) {
            throw new IllegalArgumentException("inFlightTimeout must be positive");
        }
        if (maxConnections < 1 || maxConnections > 100_000) {
            throw new IllegalArgumentException("--max-connections must be between 1 and 100000");
        }
        if (requestQueue < 1 || requestQueue > 100_000) {
            throw new IllegalArgumentException("--request-queue must be between 1 and 100000");
        }
        if (idleTimeout == null || idleTimeout.compareTo(Duration.ofMillis(100)) < 0
                || idleTimeout.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("--idle-timeout must be between 100ms and 1h");
        }
        if (addressShare < 1 || addressShare > 100) {
            throw new IllegalArgumentException("--address-share must be a percentage between 1 and 100");
        }
        if (requestDeadline == null || requestDeadline.compareTo(Duration.ofMillis(100)) < 0
                || requestDeadline.compareTo(Duration.ofMinutes(10)) > 0) {
            throw new IllegalArgumentException("--request-deadline must be between 100ms and 10m");
        }
        if (authFailuresPerMinute < 1 || authFailuresPerMinute > 1_000_000) {
            throw new IllegalArgumentException("--auth-failures-per-minute must be between 1 and 1000000");
        }
    }

    /** How many connections one client address may hold: its share of the limit, at least one. */
    public int connectionsPerAddress() {
        return Math.max(1, (int) ((long) maxConnections * addressShare / 100));
    }

    /**
     * 127.0.0.1, a free port, 16 KiB bodies, abandoned claims after 1 minute, 2,000 connections,
     * 2,000 queued requests, 30 s idle timeout, 10% of the connections per client address, 10 s to
     * send a request, 30 failed authentications a minute per client address.
     */
    public static ApiOptions defaults() {
        return new ApiOptions("127.0.0.1", 0, DEFAULT_MAX_BODY_BYTES, Duration.ofMinutes(1),
                DEFAULT_MAX_CONNECTIONS, DEFAULT_REQUEST_QUEUE, DEFAULT_IDLE_TIMEOUT,
                DEFAULT_ADDRESS_SHARE, DEFAULT_REQUEST_DEADLINE, DEFAULT_AUTH_FAILURES_PER_MINUTE);
    }

    public ApiOptions withHost(String h) {
        return new ApiOptions(h, port, maxBodyBytes, inFlightTimeout, maxConnections, requestQueue, idleTimeout, addressShare, requestDeadline, authFailuresPerMinute);
    }

    public ApiOptions withPort(int p) {
        return new ApiOptions(host, p, maxBodyBytes, inFlightTimeout, maxConnections, requestQueue, idleTimeout, addressShare, requestDeadline, authFailuresPerMinute);
    }

    public ApiOptions withMaxBodyBytes(int max) {
        return new ApiOptions(host, port, max, inFlightTimeout, maxConnections, requestQueue, idleTimeout, addressShare, requestDeadline, authFailuresPerMinute);
    }

    public ApiOptions withInFlightTimeout(Duration d) {
        return new ApiOptions(host, port, maxBodyBytes, d, maxConnections, requestQueue, idleTimeout, addressShare, requestDeadline, authFailuresPerMinute);
    }

    /** The connection limit, the request queue and the idle timeout together. */
    public ApiOptions withJetty(int connections, int queue, Duration idle) {
        return new ApiOptions(host, port, maxBodyBytes, inFlightTimeout, connections, queue, idle, addressShare, requestDeadline, authFailuresPerMinute);
    }

    /** The share of the connections one client address may hold (percent) and the request deadline. */
    public ApiOptions withConnectionBounds(int share, Duration deadline) {
        return new ApiOptions(host, port, maxBodyBytes, inFlightTimeout, maxConnections, requestQueue, idleTimeout,
                share, deadline, authFailuresPerMinute);
    }

    /** Requests from one address that may fail authentication within a minute. */
    public ApiOptions withAuthFailuresPerMinute(int n) {
        return new ApiOptions(host, port, maxBodyBytes, inFlightTimeout, maxConnections, requestQueue, idleTimeout,
                addressShare, requestDeadline, n);
    }
}
