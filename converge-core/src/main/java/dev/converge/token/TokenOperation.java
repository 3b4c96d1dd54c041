package dev.converge.token;

import dev.converge.ledger.LeafCallException;
import java.time.Duration;
import java.util.Optional;

/** An operation a single-use token permits (send the welcome email): unsafe to repeat by itself. */
public interface TokenOperation<T> {
    String name();

    /** Performs it once, with the token as its permission (and, where the leaf takes one, its idempotency key). */
    T use(String token) throws LeafCallException;

    /**
     * Performs it once, calling {@code lastCheck} right before its point of no return (e.g. the end
     * of an SMTP DATA): it throws if this delivery lost its lease meanwhile, so that a sender paused
     * mid-way never completes a use that another delivery may already have made. Operations that
     * have such a point override this; the default has none.
     */
    default T use(String token, Runnable lastCheck) throws LeafCallException {
        lastCheck.run();
        return use(token);
    }

    /**
     * Looks at the leaf: did a use with this token happen? Empty when the leaf cannot tell; then
     * a use whose outcome is unknown is never repeated and its flow needs a person.
     */
    default Optional<Boolean> wasUsed(String token) throws LeafCallException {
        return Optional.empty();
    }

    /** Whether {@link #wasUsed} can answer at all (without calling the leaf to find out). */
    default boolean canTellIfUsed() {
        return false;
    }

    /**
     * How long a use that a delivery started, and then abandoned when it stopped (a SIGSTOP, a long
     * pause) or lost its lease, may still complete at the leaf: for SMTP, the server's idle timeout,
     * after which it drops a DATA that stalled before its end. A {@link #wasUsed} "no" about such a
     * use is trusted only once this long has passed since the token was taken from that delivery;
     * before, the taking delivery looks again later instead of using the token. Zero (the default)
     * where an abandoned use cannot complete later.
     */
    default Duration abandonedUseWindow() {
        return Duration.ZERO;
    }
}
