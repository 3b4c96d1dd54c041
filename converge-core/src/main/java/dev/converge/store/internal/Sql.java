package dev.converge.store.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * One SQL statement written with {@code :name} parameters, parsed once for a dialect. Each
 * table's class holds its statements as constants of this type.
 */
public final class Sql {
    private final String text;
    private final List<String> names;

    private Sql(String text, List<String> names) {
        this.text = text;
        this.names = names;
    }

    public static Sql of(Dialect dialect, String template) {
        String sql = dialect.expand(template);
        StringBuilder out = new StringBuilder(sql.length());
        List<String> names = new ArrayList<>();
        boolean quoted = false;
        for (int i = 0; i < sql.length(); i++) {
            char ch = sql.charAt(i);
            if (ch == '\'') {
                quoted = !quoted;
                out.append(ch);
            } else if (!quoted && ch == ':' && i + 1 < sql.length() && sql.charAt(i + 1) == ':') {
                out.append("::");
                i++;
            } else if (!quoted && ch == ':' && i + 1 < sql.length() && Character.isJavaIdentifierStart(sql.charAt(i + 1))) {
                int j = i + 1;
                while (j < sql.length() && Character.isJavaIdentifierPart(sql.charAt(j))) {
                    j++;
                }
                names.add(sql.substring(i + 1, j));
                out.append('?');
                i = j - 1;
            } else {
                out.append(ch);
            }
        }
        return new Sql(out.toString(), List.copyOf(names));
    }

    public String text() {
        return text;
    }

    public PreparedStatement prepare(Connection c, Params params) throws SQLException {
        PreparedStatement ps = c.prepareStatement(text);
        return bind(ps, params);
    }

    /** Prepares an UPDATE or INSERT whose affected rows' columns are read back (portable RETURNING). */
    public PreparedStatement prepareReturning(Connection c, Params params, String... columns) throws SQLException {
        PreparedStatement ps = c.prepareStatement(text, columns);
        return bind(ps, params);
    }

    public PreparedStatement bind(PreparedStatement ps, Params params) throws SQLException {
        try {
            for (int i = 0; i < names.size(); i++) {
                Params.Value v = params.get(names.get(i));
                Params.bind(ps, i + 1, v.value(), v.sqlType());
            }
            return ps;
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
    }

    public int update(Connection c, Params params) throws SQLException {
        try (PreparedStatement ps = prepare(c, params)) {
            return ps.executeUpdate();
        }
    }

    public <T> List<T> query(Connection c, Params params, RowMapper<T> mapper) throws SQLException {
        try (PreparedStatement ps = prepare(c, params); ResultSet rs = ps.executeQuery()) {
            List<T> out = new ArrayList<>();
            while (rs.next()) {
                out.add(mapper.map(rs));
            }
            return out;
        }
    }

    public <T> T queryOne(Connection c, Params params, RowMapper<T> mapper) throws SQLException {
        List<T> rows = query(c, params, mapper);
        return rows.isEmpty() ? null : rows.get(0);
    }

    /** Reads a timestamp column as an Instant on both databases. */
    public static Instant instant(ResultSet rs, String column) throws SQLException {
        return instant(rs, rs.findColumn(column));
    }

    /** {@link #instant(ResultSet, String)} by column index. */
    public static Instant instant(ResultSet rs, int column) throws SQLException {
        // asked for as OffsetDateTime, both drivers skip the Calendar arithmetic of java.sql.Timestamp,
        // which was a visible share of the fetch path's CPU
        try {
            OffsetDateTime odt = rs.getObject(column, OffsetDateTime.class);
            return odt == null ? null : odt.toInstant();
        } catch (SQLException notAnOffsetTime) {
            Object o = rs.getObject(column); // a column or expression of another time type
            if (o == null) {
                return null;
            }
            if (o instanceof java.sql.Timestamp ts) {
                return ts.toInstant();
            }
            throw notAnOffsetTime;
        }
    }

    /** Reads a nullable BIGINT column by index. */
    public static Long nullableLong(ResultSet rs, int column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    /** Reads a nullable INT column by index. */
    public static Integer nullableInt(ResultSet rs, int column) throws SQLException {
        int v = rs.getInt(column);
        return rs.wasNull() ? null : v;
    }

    /** Reads a nullable BIGINT column. */
    public static Long nullableLong(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    /** Reads a nullable INT column. */
    public static Integer nullableInt(ResultSet rs, String column) throws SQLException {
        int v = rs.getInt(column);
        return rs.wasNull() ? null : v;
    }

    @FunctionalInterface
    public interface RowMapper<T> {
        T map(ResultSet rs) throws SQLException;
    }

    @Override
    public String toString() {
        return text;
    }
}
