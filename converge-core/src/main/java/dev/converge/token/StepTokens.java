package dev.converge.token;

import java.util.Optional;

/**
 * Single-use tokens as a running step sees them: every use is checked out, marked and spent under
 * the step's own lease, so the step never passes its context back. Obtained from
 * {@code ctx.tokens()}; pools are filled and settled through {@code engine.tokens()} ({@link Tokens}).
 *
 * <pre>{@code
 * TokenUse<String> sent = ctx.tokens().useOnce("welcome", site.subject(), welcomeMail);
 * }</pre>
 */
public interface StepTokens {

    /**
     * Uses the subject's token of the pool for the operation, at most once. Returns the
     * operation's result, or {@code alreadySpent} if an earlier delivery spent it.
     */
    <T> TokenUse<T> useOnce(String pool, String subject, TokenOperation<T> op);

    /** The token of a pool bound to a subject, if there is one. */
    Optional<Token> forSubject(String pool, String subject);
}
