package dev.converge.ledger;

import java.time.Duration;
import java.util.Optional;

/**
 * The leaf said no and nothing was changed there: a 4xx other than "exists", a 5xx to a request
 * that changes nothing, a 429, a connection refused before anything was sent. {@link #isTransient()}
 * says whether trying again later can help; {@link #retryAfter()} carries the leaf's own advice.
 */
public class LeafRejected extends LeafCallException {
    private final int status;
    private final boolean transientFailure;
    private final Duration retryAfter;

    public LeafRejected(String leaf, String message, int status, boolean transientFailure, Duration retryAfter,
            Throwable cause) {
        super(leaf, message, cause);
        this.status = status;
        this.transientFailure = transientFailure;
        this.retryAfter = retryAfter;
    }

    public LeafRejected(String leaf, String message, int status, boolean transientFailure) {
        this(leaf, message, status, transientFailure, null, null);
    }

    /** The HTTP status, or 0 where none was received. */
    public int status() {
        return status;
    }

    public boolean isTransient() {
        return transientFailure;
    }

    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }
}
