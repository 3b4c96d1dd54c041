package dev.converge.queue;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How a failing job is retried, read as a sentence:
 * {@code RetryPolicy.attempts(5).backoff(Duration.ofSeconds(1)).cappedAt(Duration.ofMinutes(5)).jitter(0.2)}
 * — at most five attempts, waiting 1s, 2s, 4s, ... never more than five minutes, each wait
 * spread by ±20% so that a crowd of failures does not come back in step; then give up.
 */
public final class RetryPolicy {
    private final int maxAttempts;
    private final Duration base;
    private final Duration cap;
    private final double jitter;

    private RetryPolicy(int maxAttempts, Duration base, Duration cap, double jitter) {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("attempts must be at least 1, was " + maxAttempts);
        }
        if (base.isNegative() || cap.isNegative() || cap.compareTo(base) < 0) {
            throw new IllegalArgumentException("backoff must be non-negative and not above its cap");
        }
        if (jitter < 0 || jitter > 1) {
            throw new IllegalArgumentException("jitter must be between 0 and 1, was " + jitter);
        }
        this.maxAttempts = maxAttempts;
        this.base = base;
        this.cap = cap;
        this.jitter = jitter;
    }

    /** The default: 10 attempts, backoff from 1s doubling up to 10 minutes, ±20% jitter. */
    public static RetryPolicy defaults() {
        return new RetryPolicy(10, Duration.ofSeconds(1), Duration.ofMinutes(10), 0.2);
    }

    /** One attempt only: the job never runs again by itself (like a queue job with {@code tries = 1}). */
    public static RetryPolicy never() {
        return new RetryPolicy(1, Duration.ZERO, Duration.ZERO, 0);
    }

    /**
     * Up to {@code maxAttempts} attempts in all (the first run included), with the default backoff:
     * 1 s doubling up to 10 minutes, ±20% jitter; change it with {@link #backoff}, {@link #cappedAt}
     * and {@link #jitter}.
     */
    public static RetryPolicy attempts(int maxAttempts) {
        return new RetryPolicy(maxAttempts, Duration.ofSeconds(1), Duration.ofMinutes(10), 0.2);
    }

    /** This policy with {@code first} as the wait after the first failure, doubling after each next one. */
    public RetryPolicy backoff(Duration first) {
        return new RetryPolicy(maxAttempts, first, cap.compareTo(first) < 0 ? first : cap, jitter);
    }

    /** This policy with no wait longer than {@code max}. */
    public RetryPolicy cappedAt(Duration max) {
        return new RetryPolicy(maxAttempts, base, max, jitter);
    }

    /** This policy with each wait moved at random by up to {@code fraction} of it (0 to 1), so retries spread. */
    public RetryPolicy jitter(double fraction) {
        return new RetryPolicy(maxAttempts, base, cap, fraction);
    }

    /** Attempts in all, the first run included. */
    public int maxAttempts() {
        return maxAttempts;
    }

    /**
     * The wait before the next attempt, after {@code attempt} attempts have failed (1-based). The
     * engine passes the number of attempts that failed: one that ended because its node died (its
     * lease expired), or that its handler released, counts toward {@link #maxAttempts()}, not toward
     * the wait.
     */
    public Duration delayAfter(int attempt) {
        double exp = Math.pow(2, Math.max(0, Math.min(attempt - 1, 40)));
        double millis = Math.min(cap.toMillis(), base.toMillis() * exp);
        if (jitter > 0 && millis > 0) {
            millis *= 1 + ThreadLocalRandom.current().nextDouble(-jitter, jitter);
        }
        return Duration.ofMillis(Math.max(0, Math.round(Math.min(millis, cap.toMillis()))));
    }

    @Override
    public String toString() {
        return maxAttempts + " attempts, backoff " + base + " doubling to " + cap + ", jitter " + jitter;
    }
}
