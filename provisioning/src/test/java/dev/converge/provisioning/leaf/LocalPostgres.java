package dev.converge.provisioning.leaf;

import static org.junit.jupiter.api.Assertions.fail;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import org.junit.jupiter.api.Assumptions;

/**
 * The local PostgreSQL server the PG leaf tests run against (127.0.0.1:5432, user root, trust
 * auth; override with CONVERGE_PG_URL / CONVERGE_PG_USER). Unreachable means a failed test when
 * CI=true, so CI can never pass by skipping, and a skipped test on a developer's machine.
 */
final class LocalPostgres {
    static final String URL = System.getenv().getOrDefault("CONVERGE_PG_URL",
            "jdbc:postgresql://127.0.0.1:5432/postgres");
    static final String USER = System.getenv().getOrDefault("CONVERGE_PG_USER", "root");

    private LocalPostgres() {
    }

    static void requireReachable() {
        try (Connection ignored = connect(URL)) {
            // reachable
        } catch (SQLException e) {
            String why = "PostgreSQL is unreachable at " + URL + " (" + e.getSQLState() + ")";
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                fail(why + " and CI=true: the PostgreSQL leaf must be tested", e);
            }
            Assumptions.abort(why + "; skipping outside CI");
        }
    }

    static Connection connect(String url) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", USER);
        props.setProperty("connectTimeout", "3");
        return DriverManager.getConnection(url, props);
    }

    /** The same server, another database on it. */
    static String urlOf(String database) {
        return URL.substring(0, URL.lastIndexOf('/') + 1) + database;
    }
}
