package dev.converge.queue;

import java.time.Duration;
import java.util.Objects;

/**
 * A kind of job: its stored name, the Java type of its JSON payload, and its defaults (queue,
 * retry policy, timeout). Immutable; the {@code with...} methods return changed copies.
 */
public final class JobType<T> {

    private final String name;
    private final Class<T> payloadType;
    private final String queue;
    private final RetryPolicy retry;
    private final Duration timeout;

    private JobType(String name, Class<T> payloadType, String queue, RetryPolicy retry, Duration timeout) {
        if (name == null || !validName(name)) {
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

    /**
     * A job type: its {@code name} is what the database stores and every node must agree on;
     * {@code payloadType} is the JSON-mapped payload (a record, usually). Queue "default", the default
     * retry policy, no timeout; the {@code with...} methods change them.
     */
    public static <T> JobType<T> of(String name, Class<T> payloadType) {
        return new JobType<>(name, payloadType, "default", RetryPolicy.defaults(), null);
    }

    /**
     * {@code [A-Za-z0-9][A-Za-z0-9._:-]{0,199}}, checked by hand: {@link Job#queue} checks every job's
     * queue as it is built, and a regex matcher per job was a visible share of enqueueing one.
     */
    static boolean validName(String s) {
        int n = s.length();
        if (n < 1 || n > 200 || !alnum(s.charAt(0))) {
            return false;
        }
        for (int i = 1; i < n; i++) {
            char ch = s.charAt(i);
            if (!alnum(ch) && ch != '.' && ch != '_' && ch != ':' && ch != '-') {
                return false;
            }
        }
        return true;
    }

    private static boolean alnum(char ch) {
        return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
    }

    static String validQueue(String queue) {
        if (queue == null || !validName(queue)) {
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
