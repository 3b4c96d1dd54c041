package dev.converge.token;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Pools of single-use tokens (R11). A token has an owner for its whole life: a delivery checks it
 * out, marks its use as started, performs the operation it permits once, and spends it; on a
 * definitive failure it gives it back. Every step is fenced by the delivery's lease, so a stale
 * worker cannot spend, or give back, a token that is no longer its own. Obtained from
 * {@code engine.tokens()}; a step uses a token through {@code ctx.tokens()} ({@link StepTokens}).
 */
public interface Tokens {

    /** How the reaper asks the leaf whether a token of this pool was used. */
    void resolveWith(String pool, TokenLookup lookup);

    /** Adds a token to a pool, bound to a subject (or null for any); false if the pool already has it. */
    boolean add(String pool, String token, String subject);

    /** Adds a token in the caller's transaction (e.g. with the row it permits something for). */
    boolean add(Connection callerTransaction, String pool, String token, String subject);

    /** The token of a pool bound to a subject, if there is one. */
    Optional<Token> forSubject(String pool, String subject);

    /** Tokens of a pool by state, plus {@code used_unspent}: checked out, use started, not spent. */
    Map<String, Long> counts(String pool);

    /** Every token of a pool. */
    List<Token> all(String pool);

    /** Returns tokens checked out but never used by deliveries that ended; returns how many. */
    int returnAbandoned(Duration olderThan);

    /**
     * The reaper's pass: returns unused tokens of ended owners, and schedules the settling of used
     * ones (their pool's lookup says whether the use happened: spent if so, given back if not).
     * Returns how many tokens it acted on.
     */
    int reap(Duration olderThan);

    /**
     * A person settles a token whose use is unknown (checked out, its use started, its owner gone
     * and the leaf unable to tell): {@code used} spends it, otherwise it is available again for
     * another use. Fenced by the token's state and owner: of two settlements at once, one applies,
     * and a stale delivery of the old owner can no longer spend or give it back.
     *
     * @return true if this call settled it; false if its use is not unknown (or its owner still runs)
     */
    boolean settle(long tokenId, boolean used, String actor, String reason);

    /** A token by id. */
    Optional<Token> get(long tokenId);
}
