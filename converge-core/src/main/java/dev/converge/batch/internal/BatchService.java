package dev.converge.batch.internal;

import dev.converge.batch.Batch;
import dev.converge.batch.BatchProgress;
import dev.converge.batch.Batches;

import dev.converge.queue.Job;
import dev.converge.queue.internal.EngineRuntime;
import dev.converge.queue.internal.FinishContext;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.function.Function;

/** The engine's {@link Batches}. */
public final class BatchService implements Batches {
    private final EngineRuntime rt;
    private final BatchTracker tracker;
    private final Function<Job<?>, JobSpec> encoder;

    public BatchService(EngineRuntime rt, BatchTracker tracker, Function<Job<?>, JobSpec> encoder) {
        this.rt = rt;
        this.tracker = tracker;
        this.encoder = encoder;
    }

    private BatchSpec encode(Batch batch) {
        return BatchSpec.of(batch, encoder);
    }

    /** Dispatches the batch in its own transaction; returns its id. */
    public long start(Batch batch) {
        BatchSpec spec = encode(batch);
        return rt.inFinishTransaction(tx -> tracker.dispatch(tx, spec, null, null, null));
    }

    /** Dispatches the batch inside the caller's transaction: it exists if and only if the caller commits. */
    public long start(Connection callerTransaction, Batch batch) {
        BatchSpec spec = encode(batch);
        FinishContext tx = rt.finishContext(callerTransaction);
        try {
            long id = tracker.dispatch(tx, spec, null, null, null);
            tx.queuesToWake().forEach(rt.wakeup()::signal);
            return id;
        } catch (SQLException e) {
            throw new dev.converge.store.StoreException("batch dispatch failed", e);
        }
    }

    public Optional<BatchProgress> progress(long batchId) {
        BatchStore.BatchRow row = rt.store().withConnection(c -> tracker.store().get(c, batchId));
        return Optional.ofNullable(row).map(BatchStore.BatchRow::progress);
    }
}
