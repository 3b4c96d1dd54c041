package dev.converge.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * One SQL statement written with {@code :name} parameters, parsed once: the small JDBC kit the
 * engine writes its own statements with, public for an application's tables beside the engine's
 * (the provisioning service's are written with it). It binds named, typed {@link Params} on a
 * {@link Connection} the caller holds — the one {@link Store#inTransaction} hands out, so that an
 * application's rows and the engine's enqueue commit together — and maps rows with a lambda.
 *
 * <p>A template made with {@link #of(Store, String)} may use two time tokens, expanded for the
 * store's database: {@code {now}} (the instant bound as {@code :now} with {@link Params#now}, or
 * the database's clock when that is null) and {@code {now+:param}} (that plus {@code :param}
 * milliseconds). A {@code ::} is PostgreSQL's cast, and a colon inside quotes is text.
 *
 * <p>Compatibility: this class and {@link Params} are public API and change only as the engine's
 * other public types do (additions in minor versions; removals after a deprecation, in a major).
 */
public final class Sql {
    private final String text;
    private final List<String> names;

    private Sql(String text, List<String> names) {
        this.text = text;
        this.names = names;
    }

    /** A statement for {@code store}'s database: its time tokens expanded, its {@code :name} parameters parsed. */
    public static Sql of(Store store, String template) {
        return of(store.expand(template));
    }

    /** A statement with {@code :name} parameters and no time tokens, the same on every database. */
    public static Sql of(String sql) {
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

    /** The statement as the driver gets it ({@code ?} for each parameter). */
    public String text() {
        return text;
    }

    /** Prepares the statement on {@code c} with {@code params} bound; the caller closes it. */
    public PreparedStatement prepare(Connection c, Params params) throws SQLException {
        PreparedStatement ps = c.prepareStatement(text);
        return bind(ps, params);
    }

    /** Prepares an UPDATE or INSERT whose affected rows' columns are read back (portable RETURNING). */
    public PreparedStatement prepareReturning(Connection c, Params params, String... columns) throws SQLException {
        PreparedStatement ps = c.prepareStatement(text, columns);
        return bind(ps, params);
    }

    /** Binds {@code params} to a statement prepared from {@link #text()}; closes it when a value is missing. */
    public PreparedStatement bind(PreparedStatement ps, Params params) throws SQLException {
        try {
            for (int i = 0; i < names.size(); i++) {
                Params.Value v = params.get(names.get(i));
                dev.converge.store.internal.Binding.bind(ps, i + 1, v.value(), v.sqlType());
            }
            return ps;
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
    }

    /** Runs an INSERT, UPDATE or DELETE; the number of rows it changed. */
    public int update(Connection c, Params params) throws SQLException {
        try (PreparedStatement ps = prepare(c, params)) {
            return ps.executeUpdate();
        }
    }

    /** Runs a query; each row mapped. */
    public <T> List<T> query(Connection c, Params params, RowMapper<T> mapper) throws SQLException {
        try (PreparedStatement ps = prepare(c, params); ResultSet rs = ps.executeQuery()) {
            List<T> out = new ArrayList<>();
            while (rs.next()) {
                out.add(mapper.map(rs));
            }
            return out;
        }
    }

    /** Runs a query; its first row mapped, or null when there is none. */
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

    /** Maps the current row of a result set. */
    @FunctionalInterface
    public interface RowMapper<T> {
        T map(ResultSet rs) throws SQLException;
    }

    @Override
    public String toString() {
        return text;
    }
}
