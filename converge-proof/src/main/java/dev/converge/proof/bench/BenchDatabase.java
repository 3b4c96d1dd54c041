package dev.converge.proof.bench;

import dev.converge.store.StoreConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The database a benchmark run owns: a scratch PostgreSQL database created on the given server
 * and dropped afterwards, or an H2 file in a temporary directory deleted afterwards. A run never
 * touches data it did not create.
 */
final class BenchDatabase implements AutoCloseable {
    private final String adminUrl;
    private final String user;
    private final String name;
    private final String url;
    private final Path h2Dir;

    private BenchDatabase(String adminUrl, String user, String name, String url, Path h2Dir) {
        this.adminUrl = adminUrl;
        this.user = user;
        this.name = name;
        this.url = url;
        this.h2Dir = h2Dir;
    }

    static BenchDatabase create(QueueBenchOptions o) {
        return create(o.postgres(), o.dbUrl(), o.user());
    }

    static BenchDatabase create(boolean postgres, String dbUrl, String user) {
        if (!postgres) {
            try {
                Path dir = Files.createTempDirectory("converge-bench");
                return new BenchDatabase(null, null, null, "jdbc:h2:file:" + dir.resolve("bench") + ";LOCK_TIMEOUT=10000", dir);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        String name = "cv_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection c = DriverManager.getConnection(dbUrl, user, null); Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create a scratch database on " + dbUrl + " as " + user
                    + ": " + e.getMessage(), e);
        }
        String base = dbUrl;
        int q = base.indexOf('?');
        String params = q < 0 ? "" : base.substring(q);
        String path = q < 0 ? base : base.substring(0, q);
        String url = path.substring(0, path.lastIndexOf('/') + 1) + name + params;
        return new BenchDatabase(dbUrl, user, name, url, null);
    }

    /** A store configuration on this database; each call may open another pool on it. */
    StoreConfig.Builder config() {
        StoreConfig.Builder b = StoreConfig.newBuilder().url(url);
        return user == null ? b : b.username(user);
    }

    /** The scratch database's name (null on H2). */
    String name() {
        return name;
    }

    String url() {
        return url;
    }

    Connection connect() throws SQLException {
        return user == null ? DriverManager.getConnection(url) : DriverManager.getConnection(url, user, null);
    }

    boolean postgres() {
        return h2Dir == null;
    }

    @Override
    public void close() {
        if (h2Dir != null) {
            try (Stream<Path> files = Files.walk(h2Dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return;
        }
        try (Connection c = DriverManager.getConnection(adminUrl, user, null); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        } catch (SQLException e) {
            throw new IllegalStateException("could not drop scratch database " + name, e);
        }
    }

    /**
     * Empties {@code cv_job} and its attempts. {@code cv_job_attempt} refers to {@code cv_job}:
     * PostgreSQL truncates both at once; H2 truncates only a table nothing refers to.
     */
    static void truncateJobs(java.sql.Connection c, java.sql.Statement st) throws java.sql.SQLException {
        if (c.getMetaData().getURL().startsWith("jdbc:h2:")) {
            st.execute("DELETE FROM cv_job_attempt");
            st.execute("SET REFERENTIAL_INTEGRITY FALSE");
            st.execute("TRUNCATE TABLE cv_job");
            st.execute("SET REFERENTIAL_INTEGRITY TRUE");
        } else {
            st.execute("TRUNCATE TABLE cv_job CASCADE");
        }
    }
}
