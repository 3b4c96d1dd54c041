package dev.converge.queue.internal;

import dev.converge.store.Store;
import java.lang.reflect.Field;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.PGStream;
import org.postgresql.core.QueryExecutorBase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds one dedicated connection in LISTEN and turns notifications into in-process wake-ups.
 * It reconnects on its own; while it is down, workers poll. After a reconnect every queue is
 * woken once, since notifications sent meanwhile are lost.
 *
 * <p>The driver's {@code getNotifications}, once it has read a notification, looks for more with
 * a read of 1 ms timeout before it returns; a look that times out does not move its next-look time
 * on, so it did so on every wake-up: a millisecond (more on a busy machine) added to every pickup.
 * The listening connection is told not to look (see {@link #skipDriverLookAhead}).
 */
final class PgListener implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PgListener.class);

    private final Store store;
    private final String channel;
    private final java.util.function.Consumer<String> signal;
    private final Runnable signalAll;
    private final Presence presence;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Connection connection;

    /**
     * {@code signal}: a queue was notified; {@code signalAll}: notifications may have been missed
     * (reconnected); {@code presence}: the node's sign of life, held on this session, or null.
     */
    PgListener(Store store, String channel, java.util.function.Consumer<String> signal, Runnable signalAll,
            Presence presence) {
        this.store = store;
        this.channel = channel;
        this.signal = signal;
        this.signalAll = signalAll;
        this.presence = presence;
        this.thread = new Thread(this::run, "converge-listen");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    private void run() {
        long backoff = 100;
        boolean wasDown = false;
        while (running) {
            try (Connection c = store.dedicatedConnection()) {
                if (!c.getAutoCommit()) {
                    c.setAutoCommit(true); // notifications arrive between transactions only
                }
                connection = c;
                try (Statement st = c.createStatement()) {
                    st.execute("LISTEN " + channel);
                }
                skipDriverLookAhead(c);
                if (presence != null) {
                    presence.connected(c);
                }
                if (wasDown) {
                    log.info("listening for job notifications again");
                    wasDown = false;
                }
                signalAll.run();
                backoff = 100;
                PGConnection pg = c.unwrap(PGConnection.class);
                try {
                    while (running) {
                        PGNotification[] notes = pg.getNotifications(500);
                        if (notes != null) {
                            for (PGNotification n : notes) {
                                signal.accept(n.getParameter());
                            }
                        }
                        if (presence != null) {
                            presence.tick(c);
                        }
                    }
                } finally {
                    // over the caller's pool the connection goes back to it: as the driver made it, holding no lock
                    setDriverLookAhead(c, Long.MIN_VALUE);
                    if (presence != null) {
                        presence.leaving(c);
                    }
                }
            } catch (SQLException e) {
                if (!running) {
                    return;
                }
                if (!wasDown) {
                    log.warn("job notification listener lost its connection ({}); workers poll until it is back",
                            e.getMessage());
                    wasDown = true;
                }
                sleep(backoff);
                backoff = Math.min(5000, backoff * 2);
            }
        }
    }

    /**
     * Stops pgjdbc's 1 ms look for more messages after each notification on this connection (its
     * {@code hasMessagePending} reads with a 1 ms socket timeout unless its next-look time is still
     * ahead; that time is pushed out of reach). Nothing is lost: messages already buffered are
     * still returned at once, and anything not yet read is read by the next call, which blocks on
     * the socket. Returns false, and the driver keeps its look, where its internals differ.
     */
    static boolean skipDriverLookAhead(Connection c) {
        return setDriverLookAhead(c, Long.MAX_VALUE);
    }

    /** Sets the driver's next-look time (ms) on this connection; Long.MIN_VALUE gives it its own behaviour back. */
    private static boolean setDriverLookAhead(Connection c, long nextLookNanos) {
        try {
            Object executor = c.unwrap(BaseConnection.class).getQueryExecutor();
            Field streamField = QueryExecutorBase.class.getDeclaredField("pgStream");
            streamField.setAccessible(true);
            Object stream = streamField.get(executor);
            Field next = PGStream.class.getDeclaredField("nextStreamAvailableCheckTime");
            next.setAccessible(true);
            next.setLong(stream, nextLookNanos);
            return true;
        } catch (ReflectiveOperationException | SQLException | RuntimeException e) {
            log.debug("job notifications: the driver's 1 ms look-ahead stays on ({})", e.toString());
            return false;
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        running = false;
        Connection c = connection;
        if (presence != null && c != null && !(c instanceof PGConnection)) {
            // one of the caller's pool's connections, which outlives this use of it: let the thread
            // leave its wait (at most 500 ms) and release the presence lock before it goes back
            try {
                thread.join(1500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (c != null && thread.isAlive()) {
            try {
                c.close();
            } catch (SQLException e) {
                log.debug("closing listener connection", e);
            }
        }
        thread.interrupt();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
