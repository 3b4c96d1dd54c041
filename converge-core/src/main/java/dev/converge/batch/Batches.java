package dev.converge.batch;

import java.sql.Connection;
import java.util.Optional;

/** Dispatches batches and reports their progress. Obtained from {@code engine.batches()}. */
public interface Batches {

    /** Dispatches the batch in its own transaction; returns its id. */
    long dispatch(Batch batch);

    /** Dispatches the batch inside the caller's transaction: it exists if and only if the caller commits. */
    long dispatch(Connection callerTransaction, Batch batch);

    /** A batch's counts and state, if it exists (retention deletes finished ones). */
    Optional<BatchProgress> progress(long batchId);
}
