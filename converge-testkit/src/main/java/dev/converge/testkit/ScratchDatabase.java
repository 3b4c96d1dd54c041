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
        String name = (prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12)).toLowerCase();
        if (!name.matches("[a-z][a-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("bad scratch database prefix: " + prefix);
        }
        try (Connection c = DriverManager.getConnection(adminUrl, user, null); Statement st = c.createStatement()) {
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

    public String url() {
        return url;
    }

    public String user() {
        return user;
    }

    public String name() {
        return name;
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
