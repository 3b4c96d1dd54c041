package dev.converge.queue.internal;

import static dev.converge.store.internal.Templates.sql;

import dev.converge.store.Params;
import dev.converge.store.Sql;
import dev.converge.store.internal.Dialect;
import dev.converge.store.internal.SchemaProbe;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A working node's sign of life on PostgreSQL that ends with its process. On its listening
 * connection the node takes a session advisory lock under a random key and records the key in its
 * {@code cv_node} row from that same session. When the process dies (SIGKILL, a halt, the OOM
 * killer) the server ends the session and the lock goes with it, and rescuers on other nodes put
 * the node's jobs back at once (see {@link JobStore#orphanedLeases}) instead of waiting out their
 * leases. A paused process keeps its session, so its jobs wait for their leases as before; a
 * record made before the server's last start is not trusted (every lock went with the restart).
 *
 * <p>Only the listener's thread calls {@link #connected}, {@link #tick} and {@link #leaving};
 * {@link #recordAgain} may be called from anywhere.
 */
final class Presence {
    private static final Logger log = LoggerFactory.getLogger(Presence.class);

    private final String nodeId;
    private final SchemaProbe columns;
    private final Sql record;
    private long key = newKey();
    /** Whether this node's fleet row exists, so that there is a row to record the key in. */
    private volatile boolean wanted;
    /** Set when the row must be written again (it was registered afresh). */
    private volatile boolean stale = true;
    private boolean locked;

    Presence(Dialect dialect, String nodeId) {
        this.nodeId = nodeId;
        this.columns = SchemaProbe.column(dialect, "cv_node", "presence_key");
        this.record = sql(dialect, "UPDATE cv_node SET presence_key = :key, present_since = now() WHERE node_id = :id");
    }

    /** The node's fleet row was (re)written without the key: record it again, on the listening session. */
    void recordAgain() {
        stale = true;
        wanted = true;
    }

    /** A new listening session: nothing is held on it yet. */
    void connected(Connection c) throws SQLException {
        locked = false;
        stale = true;
        tick(c);
    }

    /** On the listening session, between waits: takes the lock and records the key if that is still to do. */
    void tick(Connection c) throws SQLException {
        if (!wanted || !stale || !columns.present(c)) {
            return;
        }
        if (!locked) {
            locked = tryLock(c, key);
            if (!locked) {
                // a session of this node's previous connection still ending, or another holder: a new key next time
                key = newKey();
                return;
            }
        }
        stale = false;
        if (record.update(c, Params.of().bigint("key", key).text("id", nodeId)) == 0) {
            stale = true; // no row yet: the fleet registers it, then calls recordAgain
        }
    }

    /** Before the listening connection is given back to a pool: the lock must not outlive this node's use of it. */
    void leaving(Connection c) {
        if (!locked) {
            return;
        }
        locked = false;
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_unlock(?)")) {
            ps.setLong(1, key);
            ps.execute();
        } catch (SQLException e) {
            log.debug("node {}: could not release its presence lock ({}); the session's end releases it", nodeId,
                    e.getMessage());
        }
    }

    private static boolean tryLock(Connection c, long key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
            ps.setLong(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    private static long newKey() {
        long k;
        do {
            k = ThreadLocalRandom.current().nextLong();
        } while (k == 0);
        return k;
    }
}
