package dev.converge.queue;

import dev.converge.ConvergeException;

/** Thrown by a handler to fail its job at once, whatever attempts remain. */
public class NonRetryableException extends ConvergeException {
    public NonRetryableException(String message) {
        super(message);
    }

    public NonRetryableException(String message, Throwable cause) {
        super(message, cause);
    }
}
