package dev.converge.testkit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.opentest4j.TestAbortedException;

/**
 * A PostgreSQL database of its own for one test class or run, created on the local server and
 * dropped afterwards, so tests never depend on (or leave) leftovers.
 *
 * <p>If the server cannot be reached the tests are skipped on a developer machine, but fail when
 * {@code CI=true}: a CI run must never pass by skipping its PostgreSQL suites.
 */
public final class ScratchDatabase implements AutoCloseable {
    public static final String DEFAULT_ADMIN_URL = "jdbc:postgresql://127.0.0.1:5432/postgres";
    public static final String DEFAULT_USER = "root";

    private final String adminUrl;
    private final String user;
    private final String name;
    private final String url;

    private ScratchDatabase(String adminUrl, String user, String name) {
        this.adminUrl = adminUrl;
        this.user = user;
        this.name = name;
        this.url = adminUrl.substring(0, adminUrl.lastIndexOf('/') + 1) + name;
    }

    /** Creates a fresh database named {@code prefix_<random>} on the local server. */
    public static ScratchDatabase create(String prefix) {
        String adminUrl = System.getenv().getOrDefault("CONVERGE_PG_ADMIN_URL", DEFAULT_ADMIN_URL);
        String user = System.getenv().getOrDefault("CONVERGE_PG_USER", DEFAULT_USER);
        // the creation time is part of the name, so a later run can drop what a killed run left behind
        String name = (prefix + "_" + Long.toString(System.currentTimeMillis() / 1000, 36) + "_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 8)).toLowerCase();
        if (!name.matches("[a-z][a-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("bad scratch database prefix: " + prefix);
        }
        try (Connection c = DriverManager.getConnection(adminUrl, user, null); Statement st = c.createStatement()) {
            dropAbandoned(st, prefix.toLowerCase());
            st.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            String why = "PostgreSQL is not reachable at " + adminUrl + " as " + user + ": " + e.getMessage();
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                throw new IllegalStateException(why + " (CI=true: PostgreSQL suites must run, not skip)", e);
            }
            throw new TestAbortedException(why);
        }
        return new ScratchDatabase(adminUrl, user, name);
    }

    /**
     * Drops databases of this prefix created more than {@link #ABANDONED_AFTER_SECONDS} ago: a test
     * JVM that was killed never closed them. Younger ones may belong to a run still going.
     */
    private static void dropAbandoned(Statement st, String prefix) throws SQLException {
        long cutoff = System.currentTimeMillis() / 1000 - ABANDONED_AFTER_SECONDS;
        java.util.List<String> old = new java.util.ArrayList<>();
        try (java.sql.ResultSet rs = st.executeQuery("SELECT datname FROM pg_database WHERE datname LIKE '"
                + prefix.replace("_", "\\_") + "\\_%'")) {
            while (rs.next()) {
                String[] parts = rs.getString(1).substring(prefix.length() + 1).split("_");
                try {
                    if (parts.length == 2 && Long.parseLong(parts[0], 36) < cutoff) {
                        old.add(rs.getString(1));
                    }
                } catch (NumberFormatException e) {
                    // not one of ours
                }
            }
        }
        for (String db : old) {
            st.execute("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
        }
    }

    /** Two hours: longer than any test run here. */
    static final long ABANDONED_AFTER_SECONDS = 2 * 3600;

    public String url() {
        return url;
    }

    public String user() {
        return user;
    }

    public String name() {
        return name;
    }

    /** The server's maintenance database, from which this one was created (and can be cut off). */
    public String adminUrl() {
        return adminUrl;
    }

    @Override
    public void close() {
        try (Connection c = DriverManager.getConnection(adminUrl, user, null); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        } catch (SQLException e) {
            throw new IllegalStateException("could not drop scratch database " + name, e);
        }
    }
}
