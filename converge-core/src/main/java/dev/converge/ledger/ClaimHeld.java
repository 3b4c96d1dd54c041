package dev.converge.ledger;

import dev.converge.ConvergeException;
import java.time.Duration;

/**
 * Another live delivery holds the claim on this resource and is creating it right now. Not an
 * error: the job is released to run again after {@link #retryAfter()}, without spending an
 * attempt, until the other has confirmed or died (its lease then expires and the claim is free).
 */
public class ClaimHeld extends ConvergeException {
    /** How long a job waits, by default, before it looks at a held claim again. */
    public static final Duration DEFAULT_WAIT = Duration.ofMillis(500);

    private final Duration retryAfter;

    public ClaimHeld(String message) {
        this(message, DEFAULT_WAIT);
    }

    public ClaimHeld(String message, Duration retryAfter) {
        super(message);
        if (retryAfter == null || retryAfter.isNegative()) {
            throw new IllegalArgumentException("retryAfter must not be negative");
        }
        this.retryAfter = retryAfter;
    }

    /** When to look again. */
    public Duration retryAfter() {
        return retryAfter;
    }
}
