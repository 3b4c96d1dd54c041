package dev.converge.store.internal;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Whether a table (or a table's column) added by a migration exists yet, for code that runs beside
 * the previous release's schema during a rolling deploy: looked up in the connection's schema at
 * most every 10 s until it is there, then never again (a statement on a missing table or column
 * would abort the caller's transaction).
 */
public final class SchemaProbe {
    private static final long LOOK_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final String table;
    private final String column;
    private volatile boolean present;
    private long lookedAt = System.nanoTime() - LOOK_EVERY_NANOS;

    private SchemaProbe(String table, String column) {
        this.table = table;
        this.column = column;
    }

    public static SchemaProbe table(String table) {
        return new SchemaProbe(table, null);
    }

    public static SchemaProbe column(String table, String column) {
        return new SchemaProbe(table, column);
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
                try (ResultSet rs = column == null ? md.getTables(c.getCatalog(), c.getSchema(), t, new String[] {"TABLE"})
                        : md.getColumns(c.getCatalog(), c.getSchema(), t, upper ? column.toUpperCase(Locale.ROOT) : column)) {
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
