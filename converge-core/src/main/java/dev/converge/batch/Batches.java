package dev.converge.batch;

import dev.converge.batch.internal.BatchSpec;
import dev.converge.batch.internal.BatchStore;
import dev.converge.batch.internal.BatchTracker;
import dev.converge.batch.internal.JobSpec;
import dev.converge.queue.Job;
import dev.converge.queue.internal.EngineRuntime;
import dev.converge.queue.internal.FinishContext;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.function.Function;

/** Dispatches batches and reports their progress. Obtained from {@code engine.batches()}. */
public final class Batches {
    private final EngineRuntime rt;
    private final BatchTracker tracker;
    private final Function<Job<?>, JobSpec> encoder;

    Batches(EngineRuntime rt, BatchTracker tracker, Function<Job<?>, JobSpec> encoder) {
        this.rt = rt;
        this.tracker = tracker;
        this.encoder = encoder;
    }

    private BatchSpec encode(Batch batch) {
        return BatchSpec.of(batch, encoder);
    }

    /** Dispatches the batch in its own transaction; returns its id. */
    public long dispatch(Batch batch) {
        BatchSpec spec = encode(batch);
        FinishContext[] tx = new FinishContext[1];
        long id = rt.store().inTransaction(c -> {
            tx[0] = rt.finishContext(c);
            return tracker.dispatch(tx[0], spec, null, null, null);
        });
        tx[0].queuesToWake().forEach(rt.wakeup()::signal);
        return id;
    }

    /** Dispatches the batch inside the caller's transaction: it exists if and only if the caller commits. */
    public long dispatch(Connection callerTransaction, Batch batch) {
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
