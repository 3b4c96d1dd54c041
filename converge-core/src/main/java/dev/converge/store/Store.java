package dev.converge.store;

import dev.converge.store.internal.Dialects;
import dev.converge.store.internal.Dialect;
import dev.converge.time.EngineClock;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable home of everything the engine knows: a pooled database (PostgreSQL or H2), its
 * dialect, the engine clock, and units of work over it. Table classes ({@code JobStore},
 * {@code ClaimStore}, ...) take the {@link Connection} of a unit of work so that several of
 * them can change state atomically in one transaction.
 *
 * <p>Two ways in: {@link #of(DataSource)} over the application's own pool (the application owns
 * the pool and the schema: run {@link #migrate()} or your own Flyway over
 * {@link #migrationLocation()}), or {@link #open(StoreConfig)}, which builds and owns a HikariCP
 * pool (HikariCP and Flyway must then be on the classpath).
 *
 * <pre>{@code
 * Store store = Store.of(dataSource);   // your pool; closing the store leaves it open
 * store.migrate();                      // or let your own Flyway run store.migrationLocation()
 * }</pre>
 */
public final class Store implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Store.class);
    /** How many times {@link #inRetriedTransaction} runs its work at most. */
    public static final int VICTIM_ATTEMPTS = 5;

    /** The table the engine's own migrations are recorded in, apart from the application's. */
    public static final String SCHEMA_HISTORY_TABLE = "cv_schema_history";

    private final StoreConfig config;
    private final DataSource dataSource;
    /** The pool this store built and closes; null over the caller's pool, which the caller closes. */
    private final AutoCloseable ownedPool;
    private final Dialect dialect;
    private final boolean ownsConnections;

    private Store(StoreConfig config, DataSource dataSource, AutoCloseable ownedPool) {
        this.config = config;
        this.dataSource = dataSource;
        this.ownedPool = ownedPool;
        this.ownsConnections = ownedPool != null;
        this.dialect = Dialects.forUrl(config.url(), config.schema());
    }

    /** Opens a store on a HikariCP pool of its own (HikariCP, and Flyway when it migrates, on the classpath). */
    public static Store open(StoreConfig config) {
        DataSource ds = HikariPools.open(config);
        Store store = new Store(config, ds, (AutoCloseable) ds);
        try {
            StartupWait wait = new StartupWait(config.startupWait(), Dialects.redactUrl(config.url()));
            wait.until(() -> {
                try (Connection c = ds.getConnection()) {
                    return null;
                }
            });
            if (config.migrate()) {
                wait.until(() -> {
                    store.migrate();
                    return null;
                });
            }
        } catch (RuntimeException e) {
            store.close();
            throw e;
        } catch (InterruptedException e) {
            store.close();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the database at "
                    + Dialects.redactUrl(config.url()), e);
        } catch (Exception e) {
            store.close();
            String message = "cannot reach the database at " + Dialects.redactUrl(config.url())
                    + (config.startupWait().isZero() ? "" : " (waited up to " + config.startupWait().toSeconds() + " s)");
            throw e instanceof SQLException sql ? new StoreException(message, sql) : new IllegalStateException(message, e);
        }
        return store;
    }

    /**
     * A store over the application's own pool, with the database clock. The application owns the
     * pool (closing the store leaves it open) and the schema: this applies no migration. Call
     * {@link #migrate()}, or have your own Flyway run {@link #migrationLocation()} with its own
     * history table {@value #SCHEMA_HISTORY_TABLE}.
     */
    public static Store of(DataSource dataSource) {
        return of(dataSource, EngineClock.database());
    }

    /** As {@link #of(DataSource)}, with another clock (tests move a settable one). */
    public static Store of(DataSource dataSource, EngineClock clock) {
        return of(dataSource, clock, null);
    }

    /**
     * As {@link #of(DataSource, EngineClock)}, with the engine's tables in {@code schema} (see
     * {@link StoreConfig.Builder#schema}); null for the connections' own schema.
     */
    public static Store of(DataSource dataSource, EngineClock clock, String schema) {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(clock, "clock");
        String url;
        String user;
        try (Connection c = dataSource.getConnection()) {
            DatabaseMetaData md = c.getMetaData();
            url = md.getURL();
            user = md.getUserName();
        } catch (SQLException e) {
            throw new StoreException("cannot reach the database through the given DataSource", e);
        }
        if (url == null) {
            throw new IllegalArgumentException("the DataSource's connections do not name their JDBC URL");
        }
        StoreConfig described = StoreConfig.newBuilder().url(url).username(user).migrate(false).clock(clock).schema(schema)
                .build();
        return new Store(described, dataSource, null);
    }

    /**
     * Applies pending migrations of the engine's schema (Flyway on the classpath); safe to run
     * concurrently from many processes.
     */
    public void migrate() {
        Migrations.apply(dataSource, migrationLocation(), SCHEMA_HISTORY_TABLE,
                // H2 folds unquoted names to upper case, and Flyway quotes the schema it is given
                config.schema() == null ? null : "h2".equals(dialect.name()) ? config.schema().toUpperCase(java.util.Locale.ROOT)
                        : config.schema());
        log.debug("converge schema migrated on {}", dialect);
    }

    /**
     * Applies an application's own Flyway migrations at {@code location}, recorded in their own
     * {@code historyTable}, in the connections' schema, as {@link #migrate()} applies the engine's:
     * safe to run from many processes at once, and on PostgreSQL skipped without loading Flyway when the
     * schema already records, as successful, every version listed in the classpath resource
     * {@code <location>.versions} (one a line, kept beside the scripts). Without that list Flyway always runs.
     */
    public void migrate(String location, String historyTable) {
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(historyTable, "historyTable");
        Migrations.apply(dataSource, location, historyTable, null);
    }

    /**
     * The database this store runs on: {@code "postgresql"} or {@code "h2"} — the name of the folder
     * that holds each database's migrations, by the engine's convention and the service's.
     */
    public String database() {
        return dialect.name();
    }

    /**
     * A template's time tokens expanded for this database (see {@link Sql}), and the engine's tables
     * it names ({@code cv_job}, {@code cv_flow}, ...) put in the store's {@link StoreConfig#schema()}:
     * for statements on the engine's tables written outside {@link Sql}.
     */
    public String expand(String template) {
        return dialect.expand(template);
    }

    /**
     * Where the engine's migrations for this database are ({@code classpath:db/converge/postgresql}
     * or {@code .../h2}), for an application that runs them with its own Flyway. Give them their
     * own history table ({@value #SCHEMA_HISTORY_TABLE}), with {@code baselineOnMigrate} and
     * baseline version 0, so their versions never meet the application's.
     */
    public String migrationLocation() {
        return dialect.migrationLocation();
    }

    /**
     * A connection of its own for the PostgreSQL listener, held for as long as the node runs.
     * A store that owns its pool opens it beside the pool; over the caller's pool it is one of
     * the pool's connections.
     */
    public Connection dedicatedConnection() throws SQLException {
        if (!ownsConnections) {
            return dataSource.getConnection();
        }
        Properties p = new Properties();
        if (config.username() != null) {
            p.setProperty("user", config.username());
        }
        if (config.password() != null) {
            p.setProperty("password", config.password());
        }
        p.setProperty("connectTimeout", String.valueOf(Math.max(1, config.connectionTimeout().toSeconds())));
        p.setProperty("tcpKeepAlive", "true");
        return DriverManager.getConnection(config.url(), p);
    }

    public EngineClock clock() {
        return config.clock();
    }

    public StoreConfig config() {
        return config;
    }

    /** The pool; users may run their own transactions on it and enqueue inside them. */
    public DataSource dataSource() {
        return dataSource;
    }

    /**
     * Runs one unit of work on a pooled connection in the pool's own commit mode; if the pool
     * does not auto-commit, the work is committed (or rolled back) here.
     */
    public <T> T withConnection(SqlWork<T> work) {
        try (Connection c = dataSource.getConnection()) {
            if (c.getAutoCommit()) {
                return work.run(c);
            }
            return committed(c, work);
        } catch (SQLException e) {
            throw new StoreException("database operation failed", e);
        }
    }

    /** Runs the work in one transaction: all of it commits, or none of it does. */
    public <T> T inTransaction(SqlWork<T> work) {
        try (Connection c = dataSource.getConnection()) {
            boolean auto = c.getAutoCommit();
            if (auto) {
                c.setAutoCommit(false);
            }
            try {
                return committed(c, work);
            } finally {
                if (auto) {
                    try {
                        c.setAutoCommit(true);
                    } catch (SQLException e) {
                        log.debug("could not restore auto-commit", e);
                    }
                }
            }
        } catch (SQLException e) {
            throw new StoreException("database transaction failed", e);
        }
    }

    /** Runs the work on a connection out of auto-commit and commits it, or rolls it back on any failure. */
    private static <T> T committed(Connection c, SqlWork<T> work) throws SQLException {
        TransactionGuard.opened();
        try {
            T result = work.run(c);
            c.commit();
            return result;
        } catch (SQLException | RuntimeException e) {
            rollbackQuietly(c, e);
            throw e;
        } finally {
            TransactionGuard.closed();
        }
    }

    /**
     * Like {@link #inTransaction}, but when the database rolls the transaction back to break a
     * deadlock or a serialization conflict ({@link StoreException#isRollbackVictim()}), runs the
     * work again in a new transaction, up to {@value #VICTIM_ATTEMPTS} times, after a short random
     * pause. Only for work whose every effect is inside the transaction, so running it again is
     * safe: two writers that lock the same rows in different orders (an external caller and the
     * engine's own completions, say) then both get through.
     */
    public <T> T inRetriedTransaction(SqlWork<T> work) {
        for (int attempt = 1; ; attempt++) {
            try {
                return inTransaction(work);
            } catch (StoreException e) {
                if (attempt >= VICTIM_ATTEMPTS || !e.isRollbackVictim()) {
                    throw e;
                }
                log.debug("transaction rolled back by the database (attempt {}), running it again: {}", attempt,
                        e.getMessage());
                try {
                    Thread.sleep(ThreadLocalRandom.current().nextLong(1, 10L * attempt + 1));
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    private static void rollbackQuietly(Connection c, Exception cause) {
        try {
            c.rollback();
        } catch (SQLException r) {
            cause.addSuppressed(r);
        }
    }

    /** Closes the pool if this store built it; a pool the application gave is left to the application. */
    @Override
    public void close() {
        if (ownedPool != null) {
            try {
                ownedPool.close();
            } catch (Exception e) {
                log.warn("closing the store's pool failed", e);
            }
        }
    }

    @Override
    public String toString() {
        return "Store{" + dialect + ", " + Dialects.redactUrl(config.url()) + "}";
    }
}
