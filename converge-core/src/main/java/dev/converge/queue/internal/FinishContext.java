package dev.converge.queue.internal;

import dev.converge.store.internal.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * One transaction in which jobs finish and their batches, chains and flows move on. Jobs that
 * hooks enqueue here exist if and only if the transaction commits; the queues to wake are
 * signalled after the commit.
 */
public final class FinishContext {
    private final Connection connection;
    private final JobStore jobs;
    private final Dialect dialect;
    private final Instant now;
    private final Set<String> queuesToWake = new LinkedHashSet<>();
    private final Map<String, Set<Long>> queuesToWakeLater = new LinkedHashMap<>();

    public FinishContext(Connection connection, JobStore jobs, Dialect dialect, Instant now) {
        this.connection = connection;
        this.jobs = jobs;
        this.dialect = dialect;
        this.now = now;
    }

    public Connection connection() {
        return connection;
    }

    /** The engine clock's bound "now", or null for the database clock. */
    public Instant now() {
        return now;
    }

    public JobStore jobs() {
        return jobs;
    }

    /** Enqueues a job in this transaction; returns its id (the existing one if its unique key was taken). */
    public long enqueue(NewJob job) throws SQLException {
        long id = jobs.insert(connection, job, now).id();
        wake(job.queue());
        return id;
    }

    /** Wakes the workers of a queue once this transaction commits (here and, on PostgreSQL, elsewhere). */
    public void wake(String queue) throws SQLException {
        if (queuesToWake.add(queue)) {
            dialect.notify(connection, JobStore.CHANNEL, queue);
        }
    }

    public Set<String> queuesToWake() {
        return queuesToWake;
    }

    /**
     * Wakes this node's workers of a queue {@code delayMs} after this transaction commits: a job it made
     * due then (released, or retried after a backoff) runs then, not at the next poll. Delays are kept in
     * tens of milliseconds, so a batch of outcomes with the same backoff sets one timer.
     */
    public void wakeLater(String queue, long delayMs) {
        queuesToWakeLater.computeIfAbsent(queue, q -> new LinkedHashSet<>()).add((delayMs + 9) / 10 * 10);
    }

    public Map<String, Set<Long>> queuesToWakeLater() {
        return queuesToWakeLater;
    }
}
