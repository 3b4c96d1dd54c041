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
 * @param purgeEvery       how often expired idempotency keys are deleted
 */
public record ApiOptions(String host, int port, int maxBodyBytes, Duration inFlightTimeout, Duration purgeEvery) {
    public static final int DEFAULT_MAX_BODY_BYTES = 16 * 1024;

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
        if (purgeEvery == null || purgeEvery.isNegative() || purgeEvery.isZero()) {
            throw new IllegalArgumentException("purgeEvery must be positive");
        }
    }

    /** 127.0.0.1, a free port, 16 KiB bodies, abandoned claims after 1 minute, purge every 10 minutes. */
    public static ApiOptions defaults() {
        return new ApiOptions("127.0.0.1", 0, DEFAULT_MAX_BODY_BYTES, Duration.ofMinutes(1), Duration.ofMinutes(10));
    }

    public ApiOptions withHost(String h) {
        return new ApiOptions(h, port, maxBodyBytes, inFlightTimeout, purgeEvery);
    }

    public ApiOptions withPort(int p) {
        return new ApiOptions(host, p, maxBodyBytes, inFlightTimeout, purgeEvery);
    }

    public ApiOptions withMaxBodyBytes(int max) {
        return new ApiOptions(host, port, max, inFlightTimeout, purgeEvery);
    }

    public ApiOptions withInFlightTimeout(Duration d) {
        return new ApiOptions(host, port, maxBodyBytes, d, purgeEvery);
    }

    public ApiOptions withPurgeEvery(Duration d) {
        return new ApiOptions(host, port, maxBodyBytes, inFlightTimeout, d);
    }
}
