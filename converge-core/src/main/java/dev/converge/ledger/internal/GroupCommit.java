package dev.converge.ledger.internal;

import dev.converge.store.SqlWork;
import dev.converge.store.Store;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * One kind of small write that many handler threads make at the same moment (a leaf's answer recorded),
 * committed together: the first thread to arrive writes what is waiting, its own and the others', in
 * one transaction, while the threads whose writes it carries wait for that commit; writes that arrive
 * meanwhile wait for the next batch, led by one of their own threads. Each caller returns only once its
 * write is durable, so a write is recorded exactly when it would have been alone, at a fraction of the
 * database's work per write when many arrive together (a transaction of one statement costs the database
 * several times the statement, a batch spreads that over all its writes). A thread alone writes alone, in
 * its own statement and commit, as before.
 *
 * <p>No thread of its own: the leaders are the callers. When a batch's transaction fails, nothing of it
 * has been written, and each caller writes its own alone, so an error reaches the caller it belongs to.
 * Every write is fenced on its own (its statement checks its delivery's lease), so which transaction
 * carries it changes nothing about whether it applies.
 */
final class GroupCommit<I, O> {
    /** Writes of one batch: each a statement of its own, in one transaction. */
    static final int MAX_BATCH = 64;

    /** Writes the items in the given transaction, in their order: one result per item. */
    interface Together<I, O> {
        List<O> write(Connection c, List<I> items) throws SQLException;
    }

    /** One write: a statement on the given connection, alone or in a batch's transaction. */
    interface Write<I, O> {
        O write(Connection c, I item) throws SQLException;
    }

    /**
     * Writes of one statement each: a batch writes them in the given order (the same in every batch, so that
     * no batch waits on another's row while holding one that other needs), returning each its own result.
     */
    static <I, O> GroupCommit<I, O> of(Store store, int leaders, Comparator<I> order, Write<I, O> write) {
        return new GroupCommit<>(store, leaders, (c, items) -> {
            Integer[] at = new Integer[items.size()];
            for (int i = 0; i < at.length; i++) {
                at[i] = i;
            }
            Arrays.sort(at, (a, b) -> order.compare(items.get(a), items.get(b)));
            List<O> out = new ArrayList<>(Collections.nCopies(items.size(), null));
            for (int i : at) {
                out.set(i, write.write(c, items.get(i)));
            }
            return out;
        }, item -> store.withConnection(c -> write.write(c, item)));
    }

    private static final class Request<I, O> {
        final I item;
        /** The caller, woken when its write is settled or it is to lead the next batch. */
        final Thread caller = Thread.currentThread();
        boolean done;
        boolean alone;
        /** The next batch is this caller's to lead (it heads the writes waiting, and a place among the leaders is free). */
        boolean lead;
        O result;
        Throwable error;

        Request(I item) {
            this.item = item;
        }
    }

    private final Store store;
    private final int leaders;
    private final Together<I, O> together;
    private final Function<I, O> alone;
    private final Object lock = new Object();
    private final ArrayDeque<Request<I, O>> pending = new ArrayDeque<>();
    private int leading;

    /**
     * @param leaders batches in flight at once (while one commits, the next gathers)
     * @param together the batch's writes, inside its transaction
     * @param alone one write on its own, in its own commit (a batch of one, and each write of a failed batch)
     */
    GroupCommit(Store store, int leaders, Together<I, O> together, Function<I, O> alone) {
        this.store = store;
        this.leaders = leaders;
        this.together = together;
        this.alone = alone;
    }

    /**
     * Writes the item, alone or in a batch, and returns once it is committed (or throws as it alone would).
     * A caller waits parked until its own write is settled or the next batch is its to lead: a settled batch
     * wakes its own callers and the one that heads the writes waiting, not every waiting thread (with 16
     * handler threads, waking them all at each commit cost more than the commits it saved).
     */
    O write(I item) {
        Request<I, O> mine = new Request<>(item);
        boolean interrupted = false;
        List<Request<I, O>> batch;
        synchronized (lock) {
            pending.add(mine);
            batch = takeBatch();
        }
        try {
            while (true) {
                if (batch != null) {
                    lead(batch);
                }
                synchronized (lock) {
                    batch = null;
                    if (mine.done || mine.alone) {
                        break;
                    }
                    if (mine.lead) {
                        mine.lead = false;
                        batch = takeBatch();
                    }
                }
                if (batch == null) {
                    LockSupport.park(this);
                    // the write is on its way or about to be: finish it, and keep the interrupt
                    interrupted |= Thread.interrupted();
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        if (mine.alone) {
            return alone.apply(item);
        }
        if (mine.error instanceof RuntimeException e) {
            throw e;
        }
        if (mine.error != null) {
            throw (Error) mine.error;
        }
        return mine.result;
    }

    /** The writes waiting, up to a batch, if a place among the leaders is free; holds that place. Under the lock. */
    private List<Request<I, O>> takeBatch() {
        if (pending.isEmpty() || leading >= leaders) {
            return null;
        }
        List<Request<I, O>> batch = new ArrayList<>(Math.min(pending.size(), MAX_BATCH));
        while (!pending.isEmpty() && batch.size() < MAX_BATCH) {
            batch.add(pending.poll());
        }
        leading++;
        return batch;
    }

    /**
     * Writes a batch, holding its place among the leaders meanwhile (the writes arriving gather for the next):
     * one alone in its own commit (its error goes to its caller), several in one transaction.
     */
    private void lead(List<Request<I, O>> batch) {
        List<O> results = null;
        Throwable error = null;
        try {
            if (batch.size() == 1) {
                try {
                    results = Collections.singletonList(alone.apply(batch.get(0).item));
                } catch (RuntimeException | Error e) {
                    error = e; // its caller's, as if it had written alone
                }
            } else {
                List<I> items = new ArrayList<>(batch.size());
                for (Request<I, O> r : batch) {
                    items.add(r.item);
                }
                SqlWork<List<O>> work = c -> together.write(c, items);
                results = store.inTransaction(work);
            }
        } catch (RuntimeException | Error e) {
            results = null; // nothing of the batch was written: each writes its own, alone
        } finally {
            settle(batch, results, error);
        }
    }

    private void settle(List<Request<I, O>> batch, List<O> results, Throwable error) {
        List<Thread> wake = new ArrayList<>(batch.size() + 1);
        synchronized (lock) {
            leading--;
            for (int i = 0; i < batch.size(); i++) {
                Request<I, O> r = batch.get(i);
                if (error != null) {
                    r.error = error;
                    r.done = true;
                } else if (results == null) {
                    r.alone = true;
                } else {
                    r.result = results.get(i);
                    r.done = true;
                }
                if (r.caller != Thread.currentThread()) {
                    wake.add(r.caller);
                }
            }
            // the place this batch held is free: the write that has waited longest leads the next
            Request<I, O> next = pending.peek();
            if (next != null && !next.lead) {
                next.lead = true;
                wake.add(next.caller);
            }
        }
        wake.forEach(LockSupport::unpark);
    }
}
