package dev.converge.token;

import java.time.Duration;
import java.util.Optional;

/**
 * Asks a pool's leaf whether a use with a token happened. Registered per pool so the reaper can
 * settle a token whose use started under an owner that ended without recording the outcome.
 */
@FunctionalInterface
public interface TokenLookup {
    /** Present when the leaf can tell; empty when it cannot (then the token is left for a person). */
    Optional<Boolean> wasUsed(String token);

    /** As {@link TokenOperation#abandonedUseWindow()}: how long an abandoned use may still complete; zero by default. */
    default Duration abandonedUseWindow() {
        return Duration.ZERO;
    }
}
