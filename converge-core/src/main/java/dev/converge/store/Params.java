package dev.converge.store;

import java.sql.Types;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Named, typed parameters for a {@link Sql} statement. Types are explicit because a null must
 * still tell the driver what it is (PostgreSQL infers nothing from an untyped null). Public, with
 * {@link Sql}, for an application's own tables.
 */
public final class Params {
    record Value(Object value, int sqlType) {
    }

    private final Map<String, Value> values = new HashMap<>();

    /** No parameters yet. */
    public static Params of() {
        return new Params();
    }

    /** A text (VARCHAR) parameter; null allowed. */
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

    /** A BIGINT parameter; null allowed. */
    public Params bigint(String name, Long value) {
        values.put(name, new Value(value, Types.BIGINT));
        return this;
    }

    /** An INTEGER parameter; null allowed. */
    public Params integer(String name, Integer value) {
        values.put(name, new Value(value, Types.INTEGER));
        return this;
    }

    /** A BOOLEAN parameter; null allowed. */
    public Params bool(String name, Boolean value) {
        values.put(name, new Value(value, Types.BOOLEAN));
        return this;
    }

    /** A timestamp-with-time-zone parameter, bound as UTC; null allowed. */
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
}
