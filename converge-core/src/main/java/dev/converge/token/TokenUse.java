package dev.converge.token;

/**
 * The outcome of using a token once: the operation's result, or {@code alreadySpent} when an
 * earlier delivery spent it (the operation is not repeated).
 */
public record TokenUse<T>(boolean alreadySpent, T result, Token token) {
}
