package dev.converge.chain;

import java.util.Optional;

/** Dispatches chains and reports their progress. Obtained from {@code engine.chains()}. */
public interface Chains {

    /** Dispatches the chain in its own transaction; its first link starts now. Returns its id. */
    long dispatch(Chain chain);

    /** A chain's position and state, if it exists (retention deletes finished ones). */
    Optional<ChainProgress> progress(long chainId);
}
