package dev.converge.chain;

import java.util.Optional;

/** Starts chains and reports their progress. Obtained from {@code engine.chains()}. */
public interface Chains {

    /** Starts the chain in its own transaction; its first step starts now. Returns its id. */
    long start(Chain chain);

    /** @deprecated batches, chains and flows are all started with {@code start}. */
    @Deprecated(since = "0.2.0", forRemoval = true)
    default long dispatch(Chain chain) {
        return start(chain);
    }

    /** A chain's position and state, if it exists (retention deletes finished ones). */
    Optional<ChainProgress> progress(long chainId);
}
