package dev.converge.store.internal;


import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;

/**
 * H2 in a file: the embedded default, one process. H2 keeps a failed statement from aborting
 * its transaction, so a unique violation can simply be caught; it has no cross-process
 * notification, so waking is in-process only.
 */
public final class H2Dialect implements Dialect {
    private final String schema;

    /** The engine's tables in the connection's own schema. */
    public H2Dialect() {
        this(null);
    }

    /** The engine's tables in {@code schema}, or in the connection's own when it is null. */
    public H2Dialect(String schema) {
        this.schema = schema;
    }

    @Override
    public String schema() {
        return schema;
    }

    @Override
    public String name() {
        return "h2";
    }

    @Override
    public String now() {
        return "COALESCE(CAST(:now AS TIMESTAMP WITH TIME ZONE), CURRENT_TIMESTAMP)";
    }

    @Override
    public String nowPlusMillis(String param) {
        return "DATEADD(MILLISECOND, CAST(:" + param + " AS BIGINT), " + now() + ")";
    }

    @Override
    public boolean conflictAbortsTransaction() {
        return false;
    }

    @Override
    public String onConflictDoNothing() {
        return "";
    }

    @Override
    public void notify(Connection c, String channel, String payload) {
        // in-process only: the engine signals its own waiters
    }

    @Override
    public boolean supportsListen() {
        return false;
    }

    /** H2 locks every row a {@code SELECT ... FOR UPDATE} reads, before any LIMIT. */
    @Override
    public boolean locksEveryRowItReads() {
        return true;
    }

    @Override
    public long[] insertMany(Connection c, BulkInsert insert) throws SQLException {
        List<BulkInsert.Column> cols = insert.columns();
        StringBuilder sql = new StringBuilder("INSERT INTO ").append(table(insert.table())).append(" (");
        StringBuilder marks = new StringBuilder();
        for (int i = 0; i < cols.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append(cols.get(i).name());
            marks.append(i == 0 ? "?" : ", ?");
        }
        sql.append(") VALUES (").append(marks).append(')');
        long[] ids = new long[insert.rows().size()];
        Arrays.fill(ids, -1);
        boolean skipDuplicates = insert.conflictColumn() != null;
        if (skipDuplicates) {
            // one statement a row, so a duplicate costs only its own row (H2 rolls back just the statement)
            for (int r = 0; r < insert.rows().size(); r++) {
                try (PreparedStatement ps = c.prepareStatement(sql.toString(), Statement.RETURN_GENERATED_KEYS)) {
                    bind(ps, cols, insert.rows().get(r));
                    ps.executeUpdate();
                    ids[r] = firstKey(ps);
                } catch (SQLException e) {
                    if (!"23505".equals(e.getSQLState())) {
                        throw e;
                    }
                }
            }
            return ids;
        }
        try (PreparedStatement ps = c.prepareStatement(sql.toString(), Statement.RETURN_GENERATED_KEYS)) {
            for (Object[] row : insert.rows()) {
                bind(ps, cols, row);
                ps.addBatch();
            }
            ps.executeBatch();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                int r = 0;
                while (keys.next() && r < ids.length) {
                    ids[r++] = keys.getLong(1);
                }
            }
        }
        return ids;
    }

    private static void bind(PreparedStatement ps, List<BulkInsert.Column> cols, Object[] row) throws SQLException {
        for (int i = 0; i < cols.size(); i++) {
            Binding.bind(ps, i + 1, row[i], cols.get(i).sqlType());
        }
    }

    private static long firstKey(PreparedStatement ps) throws SQLException {
        try (ResultSet keys = ps.getGeneratedKeys()) {
            return keys.next() ? keys.getLong(1) : -1;
        }
    }

    @Override
    public String toString() {
        return schema == null ? "H2" : "H2 (schema " + schema + ")";
    }
}
