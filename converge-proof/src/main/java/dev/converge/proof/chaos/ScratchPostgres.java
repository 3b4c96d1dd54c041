package dev.converge.proof.chaos;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The run's own database, created on the given PostgreSQL server and dropped at the end (also
 * after a failure or Ctrl-C), so a run never reads or leaves data it did not make. Also names
 * the run's per-site databases (a prefix unique to the run) and drops whatever of them is left.
 */
final class ScratchPostgres implements AutoCloseable {
    private final String adminUrl;
    private final String user;
    private final String name;
    private final String sitePrefix;
    private final AtomicBoolean dropped = new AtomicBoolean();
    private volatile boolean keep;

    private ScratchPostgres(String adminUrl, String user, String name, String sitePrefix) {
        this.adminUrl = adminUrl;
        this.user = user;
        this.name = name;
        this.sitePrefix = sitePrefix;
    }

    /** @param adminUrl any database on the server, to connect to while creating and dropping */
    static ScratchPostgres create(String adminUrl, String user) {
        String id = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        ScratchPostgres db = new ScratchPostgres(adminUrl, user, "cv_chaos_" + id, "cvc" + id + "_");
        try (Connection c = db.admin(); Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE " + db.name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create a scratch database on " + adminUrl + " as " + user + ": "
                    + e.getMessage() + " (is PostgreSQL running, and may " + user + " create databases?)", e);
        }
        return db;
    }

    /** Whether the server answers at all (tests skip or fail on it). */
    static boolean reachable(String adminUrl, String user) {
        try (Connection c = DriverManager.getConnection(adminUrl, user, null)) {
            return c.isValid(3);
        } catch (SQLException e) {
            return false;
        }
    }

    String name() {
        return name;
    }

    /** The JDBC URL of the scratch database. */
    String url() {
        return withDatabase(name);
    }

    /** The URL the PostgreSQL leaf connects to for per-site databases (the database given to the run). */
    String maintenanceUrl() {
        return adminUrl;
    }

    String sitePrefix() {
        return sitePrefix;
    }

    private String withDatabase(String db) {
        int q = adminUrl.indexOf('?');
        String params = q < 0 ? "" : adminUrl.substring(q);
        String path = q < 0 ? adminUrl : adminUrl.substring(0, q);
        int slash = path.indexOf('/', "jdbc:postgresql://".length());
        String server = slash < 0 ? path : path.substring(0, slash);
        return server + "/" + db + params;
    }

    private Connection admin() throws SQLException {
        return DriverManager.getConnection(adminUrl, user, null);
    }

    /** Gives the process id of the backend serving a new connection to {@code whileOpen}, before it closes. */
    <T> T withBackendPid(java.util.function.LongFunction<T> whileOpen) throws SQLException {
        try (Connection c = admin(); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return whileOpen.apply(rs.getLong(1));
        }
    }

    /** Debugging: leave the scratch database (not the per-site ones) behind. */
    void keep() {
        this.keep = true;
    }

    /** Drops the run's per-site databases that are left, then the scratch database. Safe to call twice. */
    @Override
    public void close() {
        if (!dropped.compareAndSet(false, true)) {
            return;
        }
        try (Connection c = admin(); Statement st = c.createStatement()) {
            List<String> left = new ArrayList<>();
            try (ResultSet rs = st.executeQuery("SELECT datname FROM pg_database WHERE datname LIKE '"
                    + sitePrefix.replace("_", "\\_") + "%'")) {
                while (rs.next()) {
                    left.add(rs.getString(1));
                }
            }
            for (String db : left) {
                st.execute("DROP DATABASE IF EXISTS \"" + db + "\" WITH (FORCE)");
            }
            if (keep) {
                System.err.println("chaos: scratch database " + name + " kept");
            } else {
                st.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            }
        } catch (SQLException e) {
            System.err.println("chaos: could not drop scratch database " + name + ": " + e.getMessage());
        }
    }
}
