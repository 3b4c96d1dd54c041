package dev.converge.queue.internal;

import dev.converge.store.internal.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.LinkedHashSet;
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
}
