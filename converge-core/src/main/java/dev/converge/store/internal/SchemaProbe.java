package dev.converge.store.internal;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Whether a table (or a table's column) added by a migration exists yet, for code that runs beside
 * the previous release's schema during a rolling deploy: looked up in the engine's schema (the connection's own by default) at
 * most every 10 s until it is there, then never again (a statement on a missing table or column
 * would abort the caller's transaction).
 */
public final class SchemaProbe {
    private static final long LOOK_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final String schema;
    private final String table;
    private final String column;
    private volatile boolean present;
    private long lookedAt = System.nanoTime() - LOOK_EVERY_NANOS;

    private SchemaProbe(Dialect dialect, String table, String column) {
        this.schema = dialect.schema();
        this.table = table;
        this.column = column;
    }

    /** Whether an engine table is there, in {@code dialect}'s schema (the connection's own when it names none). */
    public static SchemaProbe table(Dialect dialect, String table) {
        return new SchemaProbe(dialect, table, null);
    }

    /** Whether an engine table's column is there, in {@code dialect}'s schema. */
    public static SchemaProbe column(Dialect dialect, String table, String column) {
        return new SchemaProbe(dialect, table, column);
    }

    public boolean present(Connection c) throws SQLException {
        if (present) {
            return true;
        }
        // one lookup at a time: a caller beside the first lookup must not take "not looked yet" for "missing"
        synchronized (this) {
            if (present) {
                return true;
            }
            long now = System.nanoTime();
            if (now - lookedAt < LOOK_EVERY_NANOS) {
                return false;
            }
            DatabaseMetaData md = c.getMetaData();
            for (boolean upper : new boolean[] {false, true}) {
                String t = upper ? table.toUpperCase(Locale.ROOT) : table;
                String in = schema == null ? c.getSchema() : upper ? schema.toUpperCase(Locale.ROOT) : schema;
                try (ResultSet rs = column == null ? md.getTables(c.getCatalog(), in, t, new String[] {"TABLE"})
                        : md.getColumns(c.getCatalog(), in, t, upper ? column.toUpperCase(Locale.ROOT) : column)) {
                    if (rs.next()) {
                        present = true;
                        return true;
                    }
                }
            }
            lookedAt = now;
            return false;
        }
    }
}
