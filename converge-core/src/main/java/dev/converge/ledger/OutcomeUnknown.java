package dev.converge.ledger;

import dev.converge.queue.NonRetryableException;

/**
 * An operation that is unsafe to repeat ended without a known outcome, and nothing can look it
 * up. It is not retried; its flow ends {@code needs_attention} so a person can check.
 */
public class OutcomeUnknown extends NonRetryableException {
    public OutcomeUnknown(String message, Throwable cause) {
        super(message, cause);
    }
}
