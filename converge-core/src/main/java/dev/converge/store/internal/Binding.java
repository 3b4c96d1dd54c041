package dev.converge.store.internal;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/** How a typed value is bound to a JDBC parameter, shared by {@link dev.converge.store.Params} and the dialects' bulk inserts. */
public final class Binding {
    private Binding() {
    }

    public static void bind(PreparedStatement ps, int index, Object value, int sqlType) throws SQLException {
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

    public static OffsetDateTime toOffset(Object value) {
        if (value instanceof Instant i) {
            return i.atOffset(ZoneOffset.UTC);
        }
        if (value instanceof OffsetDateTime o) {
            return o;
        }
        throw new IllegalArgumentException("not a time: " + value.getClass().getName());
    }
}
