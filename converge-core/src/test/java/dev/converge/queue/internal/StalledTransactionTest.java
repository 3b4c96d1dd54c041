package dev.converge.queue.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.Converge;
import dev.converge.EngineInternals;
import dev.converge.flow.Harness;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A node whose process stops in the middle of a completion's transaction (a SIGSTOP, a long pause of the JVM, a
 * host that froze) holds that transaction's row locks for as long as it is stopped: the rows of every job, batch,
 * chain and flow the transaction had touched, and so the completions of other nodes that reach one of them. Its
 * deliveries' leases run out and other nodes take the jobs over, but nothing can move those rows until the stopped
 * process comes back. PostgreSQL ends such a transaction once it has sat idle for half the lease: its locks go with
 * it, and the stopped node's outcomes, refused or retried when it wakes, are fenced as always.
 */
class StalledTransactionTest {
    @Test
    void aRowWritingTransactionStalledPastHalfTheLeaseIsEndedAndItsRowsAreFree() throws Exception {
        try (Harness h = new Harness("postgres")) {
            Converge engine = h.engine(b -> b.queue("default", 1)
                    .leases(l -> l.duration(Duration.ofSeconds(2)).heartbeat(Duration.ofMillis(500))));
            try (Connection c = h.store().dataSource().getConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE stall_probe (id INT PRIMARY KEY, n INT NOT NULL)");
                s.execute("INSERT INTO stall_probe VALUES (1, 0)");
            }
            Shared node = EngineInternals.runtime(engine).node();

            CountDownLatch locked = new CountDownLatch(1);
            CompletableFuture<Void> stalled = CompletableFuture.runAsync(() -> node.inRowWritingTransaction(c -> {
                touch(c);
                locked.countDown();
                sleep(4_000); // the process stops here: no statement for twice the lease
                touch(c);
                return null;
            }));
            assertThat(locked.await(10, TimeUnit.SECONDS)).isTrue();

            // another session wants the same row, and waits at most 2.5 s for it (the stalled one holds it for 4 s)
            try (Connection other = h.store().dataSource().getConnection()) {
                try (Statement s = other.createStatement()) {
                    s.execute("SET lock_timeout = '2500ms'");
                }
                touch(other);
            }

            assertThat(stalled).as("the stalled transaction was ended, not committed").failsWithin(Duration.ofSeconds(10))
                    .withThrowableOfType(ExecutionException.class);
        }
    }

    /** Locks the probe's row (as a completion locks its jobs' rows) until the transaction ends. */
    private static void touch(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            assertThat(s.executeUpdate("UPDATE stall_probe SET n = n + 1 WHERE id = 1")).isEqualTo(1);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
