package dev.converge.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.converge.time.EngineClock;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable home of everything the engine knows: a pooled database (PostgreSQL or H2), its
 * dialect, the engine clock, and units of work over it. Table classes ({@code JobStore},
 * {@code ClaimStore}, ...) take the {@link Connection} of a unit of work so that several of
 * them can change state atomically in one transaction.
 */
public final class Store implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Store.class);
    /** How many times {@link #inRetriedTransaction} runs its work at most. */
    public static final int VICTIM_ATTEMPTS = 5;

    private final StoreConfig config;
    private final HikariDataSource dataSource;
    private final Dialect dialect;

    private Store(StoreConfig config, HikariDataSource dataSource) {
        this.config = config;
        this.dataSource = dataSource;
        this.dialect = Dialect.forUrl(config.url());
    }

    public static Store open(StoreConfig config) {
        HikariConfig hc = new HikariConfig();
        String url = config.url();
        if (url.startsWith("jdbc:h2:") && !url.toUpperCase().contains("LOCK_TIMEOUT")) {
            // H2's default of one second is shorter than a busy batch row can stay locked
            url = url + ";LOCK_TIMEOUT=10000";
        }
        hc.setJdbcUrl(url);
        if (config.username() != null) {
            hc.setUsername(config.username());
        }
        if (config.password() != null) {
            hc.setPassword(config.password());
        }
        hc.setMaximumPoolSize(config.maxPoolSize());
        hc.setMinimumIdle(Math.min(2, config.maxPoolSize()));
        hc.setAutoCommit(config.autoCommit());
        hc.setPoolName(config.poolName());
        hc.setConnectionTimeout(config.connectionTimeout().toMillis());
        // fail at start if the database is not there, but let a running engine ride out outages
        hc.setInitializationFailTimeout(config.connectionTimeout().toMillis());
        HikariDataSource ds = new HikariDataSource(hc);
        Store store = new Store(config, ds);
        try {
            if (config.migrate()) {
                store.migrate();
            }
        } catch (RuntimeException e) {
            ds.close();
            throw e;
        }
        return store;
    }

    /** Applies pending migrations of the engine's schema; safe to run concurrently from many processes. */
    public void migrate() {
        Flyway.configure()
                .dataSource(dataSource)
                .locations(dialect.migrationLocation())
                .table("cv_schema_history")
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .load()
                .migrate();
        log.debug("converge schema migrated on {}", dialect);
    }

    public Dialect dialect() {
        return dialect;
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

    @Override
    public void close() {
        dataSource.close();
    }

    @Override
    public String toString() {
        return "Store{" + dialect + ", " + Dialect.redactUrl(config.url()) + "}";
    }
}
