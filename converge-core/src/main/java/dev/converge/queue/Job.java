package dev.converge.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A request to run one job: a type, its payload, and what this one job changes from the type's
 * defaults. Immutable.
 *
 * <pre>{@code
 * engine.enqueue(Job.of(SEND_WELCOME, new Welcome(siteId)).delay(Duration.ofMinutes(5)).uniqueKey("welcome:" + siteId));
 * }</pre>
 */
public final class Job<T> {
    private final JobType<T> type;
    private final T payload;
    private final Instant runAt;
    private final Duration delay;
    private final String uniqueKey;
    private final Integer maxAttempts;
    private final String queue;

    private Job(JobType<T> type, T payload, Instant runAt, Duration delay, String uniqueKey, Integer maxAttempts,
            String queue) {
        this.type = Objects.requireNonNull(type, "type");
        this.payload = Objects.requireNonNull(payload, "payload");
        this.runAt = runAt;
        this.delay = delay;
        this.uniqueKey = uniqueKey;
        this.maxAttempts = maxAttempts;
        this.queue = queue;
    }

    /** A job of {@code type} carrying {@code payload}, due now, on the type's queue and retry policy. */
    public static <T> Job<T> of(JobType<T> type, T payload) {
        return new Job<>(type, payload, null, null, null, null, null);
    }

    /** Not before this instant. */
    public Job<T> runAt(Instant at) {
        return new Job<>(type, payload, Objects.requireNonNull(at), null, uniqueKey, maxAttempts, queue);
    }

    /** Not before this long from now (by the engine clock). */
    public Job<T> delay(Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("delay must not be negative");
        }
        return new Job<>(type, payload, null, d, uniqueKey, maxAttempts, queue);
    }

    /**
     * At most one job with this key exists; enqueueing it again returns the existing job. The
     * key is kept as long as the job row is.
     */
    public Job<T> uniqueKey(String key) {
        if (key != null && (key.isBlank() || key.length() > 500)) {
            throw new IllegalArgumentException("unique key must be 1-500 characters");
        }
        return new Job<>(type, payload, runAt, delay, key, maxAttempts, queue);
    }

    public Job<T> maxAttempts(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, was " + n);
        }
        return new Job<>(type, payload, runAt, delay, uniqueKey, n, queue);
    }

    public Job<T> queue(String q) {
        return new Job<>(type, payload, runAt, delay, uniqueKey, maxAttempts, JobType.validQueue(q));
    }

    public JobType<T> type() {
        return type;
    }

    public T payload() {
        return payload;
    }

    public Instant runAtOrNull() {
        return runAt;
    }

    public Duration delayOrNull() {
        return delay;
    }

    public String uniqueKeyOrNull() {
        return uniqueKey;
    }

    public int effectiveMaxAttempts() {
        return maxAttempts != null ? maxAttempts : type.retry().maxAttempts();
    }

    public String effectiveQueue() {
        return queue != null ? queue : type.queue();
    }
}
