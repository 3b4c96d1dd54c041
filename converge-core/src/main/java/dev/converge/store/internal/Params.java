package dev.converge.store.internal;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;

/**
 * Named, typed parameters for a {@link Sql} statement. Types are explicit because a null must
 * still tell the driver what it is (PostgreSQL infers nothing from an untyped null).
 */
public final class Params {
    record Value(Object value, int sqlType) {
    }

    private final Map<String, Value> values = new HashMap<>();

    public static Params of() {
        return new Params();
    }

    public Params text(String name, String value) {
        values.put(name, new Value(value, Types.VARCHAR));
        return this;
    }

    /** Binds {@code values} as text parameters {@code prefix0}, {@code prefix1}, ... (see {@link #names}). */
    public Params texts(String prefix, String[] values) {
        for (int i = 0; i < values.length; i++) {
            text(prefix + i, values[i]);
        }
        return this;
    }

    /**
     * {@code :prefix0, :prefix1, ...}: the placeholders of {@code count} numbered parameters, for an
     * {@code IN (...)} list whose length is fixed per prepared statement.
     */
    public static String names(String prefix, int count) {
        StringBuilder list = new StringBuilder();
        for (int i = 0; i < count; i++) {
            list.append(i == 0 ? ":" : ", :").append(prefix).append(i);
        }
        return list.toString();
    }

    public Params bigint(String name, Long value) {
        values.put(name, new Value(value, Types.BIGINT));
        return this;
    }

    public Params integer(String name, Integer value) {
        values.put(name, new Value(value, Types.INTEGER));
        return this;
    }

    public Params bool(String name, Boolean value) {
        values.put(name, new Value(value, Types.BOOLEAN));
        return this;
    }

    public Params time(String name, Instant value) {
        values.put(name, new Value(value, Types.TIMESTAMP_WITH_TIMEZONE));
        return this;
    }

    /** An array made by the statement's own connection ({@link java.sql.Connection#createArrayOf}). */
    public Params array(String name, java.sql.Array value) {
        values.put(name, new Value(value, Types.ARRAY));
        return this;
    }

    /** The engine clock's instant for {@code :now}; null means "the database's clock". */
    public Params now(Instant value) {
        return time("now", value);
    }

    Value get(String name) {
        Value v = values.get(name);
        if (v == null) {
            throw new IllegalArgumentException("no value bound for :" + name);
        }
        return v;
    }

    static void bind(PreparedStatement ps, int index, Object value, int sqlType) throws SQLException {
        if (value == null) {
            ps.setNull(index, sqlType);
        } else if (sqlType == Types.ARRAY) {
            ps.setArray(index, (java.sql.Array) value);
        } else if (sqlType == Types.TIMESTAMP_WITH_TIMEZONE) {
            ps.setObject(index, toOffset(value), Types.TIMESTAMP_WITH_TIMEZONE);
        } else {
            ps.setObject(index, value, sqlType);
        }
    }

    static OffsetDateTime toOffset(Object value) {
        if (value instanceof Instant i) {
            return i.atOffset(ZoneOffset.UTC);
        }
        if (value instanceof OffsetDateTime o) {
            return o;
        }
        throw new IllegalArgumentException("not a time: " + value.getClass().getName());
    }
}
