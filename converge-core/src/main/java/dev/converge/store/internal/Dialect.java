package dev.converge.store.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * The small seam between the databases the engine runs on. Everything else in the store is
 * one body of SQL; only what really differs between PostgreSQL and H2 is here.
 *
 * <p>SQL templates use {@code :name} parameters and two time tokens that a dialect expands:
 * {@code {now}} (the bound test instant, or the database clock when it is null) and
 * {@code {now+:param}} (that plus a number of milliseconds).
 */
public interface Dialect {

    /** "postgresql" or "h2"; also the folder of this dialect's migrations. */
    String name();

    /** Flyway location of the engine's migrations for this database. */
    default String migrationLocation() {
        return "classpath:db/converge/" + name();
    }

    /** SQL for "now": the bound {@code :now} instant, or the database clock when it is null. */
    String now();

    /** SQL for "now plus {@code :param} milliseconds". */
    String nowPlusMillis(String param);

    /**
     * Whether a unique violation inside a transaction aborts the whole transaction (PostgreSQL)
     * rather than only the failed statement (H2). Where it does, inserts that may conflict use
     * {@link #onConflictDoNothing()} so that enqueue inside a caller's transaction cannot break it.
     */
    boolean conflictAbortsTransaction();

    /** Suffix for an INSERT that silently skips rows violating a unique constraint, or "" if unsupported. */
    String onConflictDoNothing();

    /** Sends a wake-up to listeners on other processes; a no-op where the database has no such channel. */
    void notify(Connection c, String channel, String payload) throws SQLException;

    /** Whether {@link #notify} reaches other processes (PostgreSQL LISTEN/NOTIFY). */
    boolean supportsListen();

    /**
     * Has the server end the current transaction, rolled back, should it wait longer than {@code idle} for the
     * client's next statement (the client's process stopped or froze): its row locks then go with it instead of
     * being held until the process comes back. For this transaction only; a no-op where the database has no such
     * limit (H2 runs in the process that would have stopped).
     */
    default void endTransactionIfIdleFor(Connection c, java.time.Duration idle) throws SQLException {
    }

    /**
     * The WHERE condition of an UPDATE that takes the rows {@code candidates} names (a
     * {@code SELECT id ... ORDER BY ... LIMIT n}), skipping any row another transaction holds locked.
     */
    default String takeSkippingLocked(String candidates) {
        return "id IN (" + candidates + " FOR UPDATE SKIP LOCKED)";
    }

    /**
     * Whether {@code SELECT ... ORDER BY ... LIMIT n FOR UPDATE} locks every row it reads rather
     * than the n it returns (H2). Then leases pick due rows without locks first and take them with
     * a conditional update, instead of one {@link #takeSkippingLocked} statement.
     */
    default boolean locksEveryRowItReads() {
        return false;
    }

    /**
     * The lock clause for reading a row that others may read the same way at once but nobody may
     * change meanwhile ({@code FOR SHARE}); {@code FOR UPDATE} where the database has no shared row lock.
     */
    default String forShare() {
        return " FOR UPDATE";
    }

    /**
     * Whether one statement can chain writes through {@code WITH} queries (an {@code INSERT ... RETURNING}
     * whose rows another {@code INSERT} of the same statement uses), committed at once in autocommit. Where
     * it cannot, such writes go in one transaction of several statements.
     */
    default boolean writesThroughWith() {
        return false;
    }

    /**
     * Whether one UPDATE can join arrays bound as parameters ({@code UPDATE t SET ... FROM
     * unnest(CAST(? AS BIGINT[]), ...)}), so that many fenced changes cost one statement. Where it
     * cannot, callers send a JDBC batch of single-row statements.
     */
    default boolean updatesFromArrays() {
        return false;
    }

    /** The driver's element type name for {@link Connection#createArrayOf} of a JDBC type. */
    default String arrayElementType(int sqlType) {
        throw new UnsupportedOperationException(name() + " binds no arrays");
    }

    /**
     * Inserts many rows in as few statements as the database allows and returns the generated
     * ids in input order; rows skipped as duplicates get -1.
     */
    long[] insertMany(Connection c, BulkInsert insert) throws SQLException;

    /** Rows for {@link #insertMany}: a table, its columns with their JDBC types, and values row by row. */
    record BulkInsert(String table, List<Column> columns, List<Object[]> rows, String conflictColumn) {
        public record Column(String name, int sqlType) {
        }
    }

    /** The schema the engine's tables are in, or null for the connection's own (the default). */
    default String schema() {
        return null;
    }

    /** An engine table's name as statements must say it: in {@link #schema()} when there is one. */
    default String table(String name) {
        return EngineTables.qualify(name, schema());
    }

    /** Expands the time tokens of a template and puts the engine's tables in {@link #schema()}. */
    default String expand(String template) {
        String sql = template;
        int start;
        while ((start = sql.indexOf("{now+:")) >= 0) {
            int end = sql.indexOf('}', start);
            String param = sql.substring(start + 6, end);
            sql = sql.substring(0, start) + nowPlusMillis(param) + sql.substring(end + 1);
        }
        return EngineTables.qualify(sql.replace("{now}", now()), schema());
    }
}
