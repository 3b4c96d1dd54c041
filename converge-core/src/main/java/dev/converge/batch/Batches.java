package dev.converge.batch;

import java.sql.Connection;
import java.util.Optional;

/** Starts batches and reports their progress. Obtained from {@code engine.batches()}. */
public interface Batches {

    /** Starts the batch in its own transaction; returns its id. */
    long start(Batch batch);

    /** Starts the batch inside the caller's transaction: it exists if and only if the caller commits. */
    long start(Connection callerTransaction, Batch batch);

    /** @deprecated batches, chains and flows are all started with {@code start}. */
    @Deprecated(since = "0.2.0", forRemoval = true)
    default long dispatch(Batch batch) {
        return start(batch);
    }

    /** @deprecated batches, chains and flows are all started with {@code start}. */
    @Deprecated(since = "0.2.0", forRemoval = true)
    default long dispatch(Connection callerTransaction, Batch batch) {
        return start(callerTransaction, batch);
    }

    /** A batch's counts and state, if it exists (retention deletes finished ones). */
    Optional<BatchProgress> progress(long batchId);
}
