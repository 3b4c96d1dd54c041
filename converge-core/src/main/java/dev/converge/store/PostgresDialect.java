package dev.converge.store;

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

/** PostgreSQL: the production store. Bulk inserts go through {@code unnest} of arrays, thousands per statement. */
public final class PostgresDialect implements Dialect {
    /** Rows per bulk statement: large enough to amortise the round trip, small enough to stay well under protocol limits. */
    static final int BULK_ROWS = 5000;

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

    @Override
    public long[] insertMany(Connection c, BulkInsert insert) throws SQLException {
        long[] ids = new long[insert.rows().size()];
        Arrays.fill(ids, -1);
        List<BulkInsert.Column> cols = insert.columns();
        StringBuilder unnest = new StringBuilder();
        for (int i = 0; i < cols.size(); i++) {
            unnest.append(i == 0 ? "" : ", ").append("CAST(? AS ").append(arrayType(cols.get(i).sqlType())).append(")");
        }
        // WITH ORDINALITY and ORDER BY keep the input order, so the ids PostgreSQL returns (it
        // inserts an INSERT ... SELECT row by row, in order) line up with the rows given.
        String text = "WITH input AS (SELECT * FROM unnest(" + unnest + ") WITH ORDINALITY AS t("
                + columnList(cols) + ", ord)) INSERT INTO " + insert.table() + " (" + columnList(cols)
                + ") SELECT " + columnList(cols) + " FROM input ORDER BY ord"
                + (insert.conflictColumn() == null ? "" : onConflictDoNothing())
                + " RETURNING id";
        for (int from = 0; from < insert.rows().size(); from += BULK_ROWS) {
            int to = Math.min(insert.rows().size(), from + BULK_ROWS);
            List<Object[]> slice = insert.rows().subList(from, to);
            try (PreparedStatement ps = c.prepareStatement(text)) {
                for (int col = 0; col < cols.size(); col++) {
                    Object[] values = new Object[slice.size()];
                    boolean time = cols.get(col).sqlType() == Types.TIMESTAMP_WITH_TIMEZONE;
                    for (int r = 0; r < slice.size(); r++) {
                        Object v = slice.get(r)[col];
                        // the driver builds arrays of strings and numbers; timestamps travel as ISO text
                        values[r] = time && v != null ? Params.toOffset(v).toString() : v;
                    }
                    Array array = c.createArrayOf(elementType(cols.get(col).sqlType()), values);
                    ps.setArray(col + 1, array);
                }
                List<Long> returned = new ArrayList<>(slice.size());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        returned.add(rs.getLong(1));
                    }
                }
                if (returned.size() == slice.size()) {
                    for (int r = 0; r < slice.size(); r++) {
                        ids[from + r] = returned.get(r);
                    }
                }
                // With skipped duplicates the returned ids can no longer be matched by position;
                // those rows keep -1 and callers that need ids insert one at a time.
            }
        }
        return ids;
    }

    private static String columnList(List<BulkInsert.Column> cols) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < cols.size(); i++) {
            s.append(i == 0 ? "" : ", ").append(cols.get(i).name());
        }
        return s.toString();
    }

    private static String arrayType(int sqlType) {
        return switch (sqlType) {
            case Types.BIGINT -> "BIGINT[]";
            case Types.INTEGER -> "INT[]";
            case Types.BOOLEAN -> "BOOLEAN[]";
            case Types.TIMESTAMP_WITH_TIMEZONE -> "TIMESTAMPTZ[]";
            case Types.VARCHAR -> "TEXT[]";
            default -> throw new IllegalArgumentException("no array type for " + JDBCType.valueOf(sqlType));
        };
    }

    private static String elementType(int sqlType) {
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
        return "PostgreSQL";
    }
}
