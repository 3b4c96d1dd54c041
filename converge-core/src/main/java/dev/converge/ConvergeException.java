package dev.converge;

/**
 * The one unchecked root of every exception the engine raises. Callers can catch this one type
 * at their edge; JDBC's checked {@code SQLException} is wrapped at the store boundary.
 */
public class ConvergeException extends RuntimeException {
    public ConvergeException(String message) {
        super(message);
    }

    public ConvergeException(String message, Throwable cause) {
        super(message, cause);
    }
}
