package dev.converge.recurring;

import dev.converge.store.internal.Dialect;
import dev.converge.store.internal.Params;
import dev.converge.store.internal.Sql;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;

/** The SQL of {@code cv_recurring}: the last decided slot of each recurring job. */
final class RecurringStore {
    record Row(String name, Instant lastSlot, Long lastJobId, long skipped) {
    }

    private final Sql lock;
    private final Sql get;
    private final Sql insert;
    private final Sql update;

    RecurringStore(Dialect dialect) {
        this.lock = Sql.of(dialect, "SELECT name, last_slot, last_job_id, skipped FROM cv_recurring WHERE name = :name FOR UPDATE");
        this.get = Sql.of(dialect, "SELECT name, last_slot, last_job_id, skipped FROM cv_recurring WHERE name = :name");
        this.insert = Sql.of(dialect, "INSERT INTO cv_recurring (name, last_slot, updated_at) VALUES (:name, :slot, {now})"
                + dialect.onConflictDoNothing());
        this.update = Sql.of(dialect, "UPDATE cv_recurring SET last_slot = :slot, last_job_id = COALESCE(:job_id, last_job_id), "
                + "skipped = skipped + :skipped, updated_at = {now} WHERE name = :name");
    }

    Row lock(Connection c, String name) throws SQLException {
        return lock.queryOne(c, Params.of().text("name", name), RecurringStore::row);
    }

    Row get(Connection c, String name) throws SQLException {
        return get.queryOne(c, Params.of().text("name", name), RecurringStore::row);
    }

    /** Records the first slot seen; another node doing the same at once is not an error. */
    void insertFirst(Connection c, String name, Instant slot, Instant now) throws SQLException {
        try {
            insert.update(c, Params.of().now(now).text("name", name).time("slot", slot));
        } catch (SQLException e) {
            if (!"23505".equals(e.getSQLState())) {
                throw e;
            }
        }
    }

    void decided(Connection c, String name, Instant slot, Long jobId, boolean skipped, Instant now) throws SQLException {
        update.update(c, Params.of().now(now).text("name", name).time("slot", slot).bigint("job_id", jobId)
                .bigint("skipped", skipped ? 1L : 0L));
    }

    private static Row row(java.sql.ResultSet rs) throws SQLException {
        return new Row(rs.getString("name"), Sql.instant(rs, "last_slot"), Sql.nullableLong(rs, "last_job_id"),
                rs.getLong("skipped"));
    }
}
