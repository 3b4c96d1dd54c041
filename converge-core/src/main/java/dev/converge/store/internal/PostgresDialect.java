package dev.converge.store.internal;


import java.sql.Array;
import java.sql.Connection;
import java.sql.JDBCType;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/** PostgreSQL: the production store. Bulk inserts go through {@code unnest} of arrays, thousands per statement. */
public final class PostgresDialect implements Dialect {
    private final String schema;

    /** The engine's tables in the connection's own schema. */
    public PostgresDialect() {
        this(null);
    }

    /** The engine's tables in {@code schema}, or in the connection's own when it is null. */
    public PostgresDialect(String schema) {
        this.schema = schema;
    }

    @Override
    public String schema() {
        return schema;
    }
    /** Rows per bulk statement: large enough to amortise the round trip, small enough to stay well under protocol limits. */
    static final int BULK_ROWS = 5000;

    @Override
    public String forShare() {
        return " FOR SHARE";
    }

    @Override
    public String name() {
        return "postgresql";
    }

    @Override
    public String now() {
        return "COALESCE(CAST(:now AS TIMESTAMPTZ), statement_timestamp())";
    }

    @Override
    public String nowPlusMillis(String param) {
        return "(" + now() + " + CAST(:" + param + " AS DOUBLE PRECISION) * INTERVAL '1 millisecond')";
    }

    @Override
    public boolean conflictAbortsTransaction() {
        return true;
    }

    @Override
    public String onConflictDoNothing() {
        return " ON CONFLICT DO NOTHING";
    }

    @Override
    public void notify(Connection c, String channel, String payload) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, ?)")) {
            ps.setString(1, channel);
            ps.setString(2, payload);
            ps.execute();
        }
    }

    @Override
    public boolean supportsListen() {
        return true;
    }

    /** {@code idle_in_transaction_session_timeout}, set local to the transaction. */
    @Override
    public void endTransactionIfIdleFor(Connection c, java.time.Duration idle) throws SQLException {
        long ms = Math.max(1, Math.min(Integer.MAX_VALUE, idle.toMillis()));
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT set_config('idle_in_transaction_session_timeout', ?, true)")) {
            ps.setString(1, Long.toString(ms));
            ps.execute();
        }
    }

    /**
     * {@code = ANY(ARRAY(subquery))}: once the driver prepares the statement on the server,
     * PostgreSQL may plan it generically, and a generic plan turns {@code IN (subquery)} into a
     * hash join that scans the whole table (finished jobs included) on every fetch. The array form
     * always probes the primary key for just the rows the subquery locked.
     */
    @Override
    public String takeSkippingLocked(String candidates) {
        return "id = ANY(ARRAY(" + candidates + " FOR UPDATE SKIP LOCKED))";
    }

    @Override
    public boolean writesThroughWith() {
        return true;
    }

    @Override
    public boolean updatesFromArrays() {
        return true;
    }

    @Override
    public long[] insertMany(Connection c, BulkInsert insert) throws SQLException {
        long[] ids = new long[insert.rows().size()];
        Arrays.fill(ids, -1);
        for (int from = 0; from < insert.rows().size(); from += BULK_ROWS) {
            int to = Math.min(insert.rows().size(), from + BULK_ROWS);
            insertSlice(c, insert, insert.rows().subList(from, to), ids, from);
        }
        return ids;
    }

    /**
     * One INSERT ... SELECT FROM unnest(arrays) for a slice of rows. A column whose value is the
     * same on every row of the slice (queue, kind, state, the creation time, the nulls) is bound
     * once as a scalar instead of as an array of copies: that is most columns of a bulk enqueue,
     * and building, sending and parsing those arrays cost more than the insert itself.
     * WITH ORDINALITY and ORDER BY keep the input order, so the ids PostgreSQL returns (it
     * inserts an INSERT ... SELECT row by row, in order) line up with the rows given. Rows skipped
     * as duplicates leave gaps in that sequence: the conflict column comes back beside each id, and
     * a row whose value is not the next one returned was skipped (its id stays -1). A row is never
     * skipped while a later row with the same value is inserted (the first one's conflict holds for
     * the later one too), so the match is exact.
     */
    private void insertSlice(Connection c, BulkInsert insert, List<Object[]> slice, long[] ids, int offset)
            throws SQLException {
        List<BulkInsert.Column> cols = insert.columns();
        boolean[] varies = new boolean[cols.size()];
        List<String> arrays = new ArrayList<>();
        List<String> varyingNames = new ArrayList<>();
        for (int col = 0; col < cols.size(); col++) {
            Object first = slice.get(0)[col];
            for (Object[] row : slice) {
                if (!Objects.equals(first, row[col])) {
                    varies[col] = true;
                    break;
                }
            }
            if (varies[col]) {
                arrays.add("CAST(? AS " + sqlTypeName(cols.get(col).sqlType()) + "[])");
                varyingNames.add(cols.get(col).name());
            }
        }
        StringBuilder select = new StringBuilder();
        for (int col = 0; col < cols.size(); col++) {
            select.append(col == 0 ? "" : ", ").append(varies[col] ? "t." + cols.get(col).name()
                    : "CAST(? AS " + sqlTypeName(cols.get(col).sqlType()) + ")");
        }
        String source = arrays.isEmpty()
                ? "generate_series(1, " + slice.size() + ") AS t(ord)"
                : "unnest(" + String.join(", ", arrays) + ") WITH ORDINALITY AS t(" + String.join(", ", varyingNames) + ", ord)";
        String text = "INSERT INTO " + table(insert.table()) + " (" + columnList(cols) + ") SELECT " + select + " FROM " + source
                + " ORDER BY t.ord" + (insert.conflictColumn() == null ? " RETURNING id"
                        : onConflictDoNothing() + " RETURNING id, " + insert.conflictColumn());
        try (PreparedStatement ps = c.prepareStatement(text)) {
            int index = 1; // the SELECT list's scalars come before the FROM's arrays
            for (int col = 0; col < cols.size(); col++) {
                if (!varies[col]) {
                    Binding.bind(ps, index++, slice.get(0)[col], cols.get(col).sqlType());
                }
            }
            for (int col = 0; col < cols.size(); col++) {
                if (varies[col]) {
                    ps.setArray(index++, array(c, cols.get(col).sqlType(), slice, col));
                }
            }
            int conflictCol = conflictIndex(insert);
            try (ResultSet rs = ps.executeQuery()) {
                int r = 0;
                while (rs.next()) {
                    long id = rs.getLong(1);
                    if (conflictCol >= 0) {
                        String key = rs.getString(2);
                        while (r < slice.size() && !Objects.equals(key, stringOrNull(slice.get(r)[conflictCol]))) {
                            r++; // skipped as a duplicate: keeps -1
                        }
                    }
                    if (r >= slice.size()) {
                        throw new SQLException("bulk insert returned more rows than it was given, or out of order");
                    }
                    ids[offset + r++] = id;
                }
            }
        }
    }

    private static int conflictIndex(BulkInsert insert) {
        if (insert.conflictColumn() == null) {
            return -1;
        }
        for (int i = 0; i < insert.columns().size(); i++) {
            if (insert.columns().get(i).name().equals(insert.conflictColumn())) {
                return i;
            }
        }
        throw new IllegalArgumentException("no column " + insert.conflictColumn() + " in " + insert.table());
    }

    private static String stringOrNull(Object v) {
        return v == null ? null : v.toString();
    }

    private Array array(Connection c, int sqlType, List<Object[]> slice, int col) throws SQLException {
        Object[] values = new Object[slice.size()];
        boolean time = sqlType == Types.TIMESTAMP_WITH_TIMEZONE;
        for (int r = 0; r < slice.size(); r++) {
            Object v = slice.get(r)[col];
            // the driver builds arrays of strings and numbers; timestamps travel as ISO text
            values[r] = time && v != null ? Binding.toOffset(v).toString() : v;
        }
        return c.createArrayOf(arrayElementType(sqlType), values);
    }

    private static String columnList(List<BulkInsert.Column> cols) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < cols.size(); i++) {
            s.append(i == 0 ? "" : ", ").append(cols.get(i).name());
        }
        return s.toString();
    }

    private static String sqlTypeName(int sqlType) {
        return switch (sqlType) {
            case Types.BIGINT -> "BIGINT";
            case Types.INTEGER -> "INT";
            case Types.BOOLEAN -> "BOOLEAN";
            case Types.TIMESTAMP_WITH_TIMEZONE -> "TIMESTAMPTZ";
            case Types.VARCHAR -> "TEXT";
            default -> throw new IllegalArgumentException("no SQL type for " + JDBCType.valueOf(sqlType));
        };
    }

    @Override
    public String arrayElementType(int sqlType) {
        return switch (sqlType) {
            case Types.BIGINT -> "int8";
            case Types.INTEGER -> "int4";
            case Types.BOOLEAN -> "bool";
            case Types.TIMESTAMP_WITH_TIMEZONE -> "text";
            case Types.VARCHAR -> "text";
            default -> throw new IllegalArgumentException("no array type for " + JDBCType.valueOf(sqlType));
        };
    }

    @Override
    public String toString() {
        return schema == null ? "PostgreSQL" : "PostgreSQL (schema " + schema + ")";
    }
}
