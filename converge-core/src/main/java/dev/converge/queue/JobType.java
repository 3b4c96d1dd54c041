package dev.converge.queue;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A kind of job: its stored name, the Java type of its JSON payload, and its defaults (queue,
 * retry policy, timeout). Immutable; the {@code with...} methods return changed copies.
 */
public final class JobType<T> {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,199}");

    private final String name;
    private final Class<T> payloadType;
    private final String queue;
    private final RetryPolicy retry;
    private final Duration timeout;

    private JobType(String name, Class<T> payloadType, String queue, RetryPolicy retry, Duration timeout) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("job type name must be 1-200 characters of letters, digits and ._:- : " + name);
        }
        this.name = name;
        this.payloadType = Objects.requireNonNull(payloadType, "payloadType");
        this.queue = validQueue(queue);
        this.retry = Objects.requireNonNull(retry, "retry");
        if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
            throw new IllegalArgumentException("timeout must be positive");
        }
        this.timeout = timeout;
    }

    public static <T> JobType<T> of(String name, Class<T> payloadType) {
        return new JobType<>(name, payloadType, "default", RetryPolicy.defaults(), null);
    }

    static String validQueue(String queue) {
        if (queue == null || !NAME.matcher(queue).matches()) {
            throw new IllegalArgumentException("queue name must be 1-200 characters of letters, digits and ._:- : " + queue);
        }
        return queue;
    }

    public JobType<T> withQueue(String q) {
        return new JobType<>(name, payloadType, q, retry, timeout);
    }

    public JobType<T> withRetry(RetryPolicy policy) {
        return new JobType<>(name, payloadType, queue, policy, timeout);
    }

    /** A handler running longer than this is interrupted and its job retried. */
    public JobType<T> withTimeout(Duration t) {
        return new JobType<>(name, payloadType, queue, retry, t);
    }

    public String name() {
        return name;
    }

    public Class<T> payloadType() {
        return payloadType;
    }

    public String queue() {
        return queue;
    }

    public RetryPolicy retry() {
        return retry;
    }

    public Duration timeout() {
        return timeout;
    }

    @Override
    public String toString() {
        return name;
    }
}
