package dev.converge.recurring.internal;

import static dev.converge.store.internal.Templates.sql;

import dev.converge.recurring.RecurringView;
import dev.converge.store.internal.Dialect;
import dev.converge.store.Params;
import dev.converge.store.internal.SchemaProbe;
import dev.converge.store.Sql;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;

/**
 * The SQL of {@code cv_recurring}: the last decided slot of each recurring job, and whether a
 * person paused it. On the previous release's schema (without the pause columns) nothing is
 * paused and pausing is refused.
 */
final class RecurringStore {
    record Row(String name, Instant lastSlot, Long lastJobId, long skipped, Instant pausedAt,
            RecurringView.Action lastAction) {
    }

    private static final String COLUMNS = "name, last_slot, last_job_id, skipped";
    private static final String PAUSE_COLUMNS = ", paused_at, last_action, action_by, action_reason, action_at";

    private final SchemaProbe pauseColumns;
    private final Sql lock;
    private final Sql get;
    private final Sql lockPaused;
    private final Sql getPaused;
    private final Sql insert;
    private final Sql update;
    private final Sql pause;
    private final Sql resume;
    private final Sql ran;

    RecurringStore(Dialect dialect) {
        this.pauseColumns = SchemaProbe.column(dialect, "cv_recurring", "paused_at");
        this.lock = sql(dialect, "SELECT " + COLUMNS + " FROM cv_recurring WHERE name = :name FOR UPDATE");
        this.get = sql(dialect, "SELECT " + COLUMNS + " FROM cv_recurring WHERE name = :name");
        this.lockPaused = sql(dialect, "SELECT " + COLUMNS + PAUSE_COLUMNS + " FROM cv_recurring WHERE name = :name FOR UPDATE");
        this.getPaused = sql(dialect, "SELECT " + COLUMNS + PAUSE_COLUMNS + " FROM cv_recurring WHERE name = :name");
        this.insert = sql(dialect, "INSERT INTO cv_recurring (name, last_slot, updated_at) VALUES (:name, :slot, {now})"
                + dialect.onConflictDoNothing());
        this.update = sql(dialect, "UPDATE cv_recurring SET last_slot = :slot, last_job_id = COALESCE(:job_id, last_job_id), "
                + "skipped = skipped + :skipped, updated_at = {now} WHERE name = :name");
        String acted = "last_action = :action, action_by = :actor, action_reason = :reason, action_at = {now}, updated_at = {now}";
        this.pause = sql(dialect, "UPDATE cv_recurring SET paused_at = {now}, " + acted
                + " WHERE name = :name AND paused_at IS NULL");
        this.resume = sql(dialect, "UPDATE cv_recurring SET paused_at = NULL, " + acted
                + " WHERE name = :name AND paused_at IS NOT NULL");
        this.ran = sql(dialect, "UPDATE cv_recurring SET " + acted + " WHERE name = :name");
    }

    boolean pausable(Connection c) throws SQLException {
        return pauseColumns.present(c);
    }

    Row lock(Connection c, String name) throws SQLException {
        boolean p = pausable(c);
        return (p ? lockPaused : lock).queryOne(c, Params.of().text("name", name), rs -> row(rs, p));
    }

    Row get(Connection c, String name) throws SQLException {
        boolean p = pausable(c);
        return (p ? getPaused : get).queryOne(c, Params.of().text("name", name), rs -> row(rs, p));
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

    /** Pauses, resumes or records a run now; false when pausing a paused job or resuming a running one. */
    boolean act(Connection c, String name, String action, String actor, String reason, Instant now) throws SQLException {
        Sql sql = switch (action) {
            case "paused" -> pause;
            case "resumed" -> resume;
            default -> ran;
        };
        return sql.update(c, Params.of().now(now).text("name", name).text("action", action).text("actor", actor)
                .text("reason", reason)) == 1;
    }

    private static Row row(java.sql.ResultSet rs, boolean pausable) throws SQLException {
        Instant pausedAt = pausable ? Sql.instant(rs, "paused_at") : null;
        RecurringView.Action last = pausable && rs.getString("last_action") != null
                ? new RecurringView.Action(rs.getString("last_action"), rs.getString("action_by"),
                        rs.getString("action_reason"), Sql.instant(rs, "action_at"))
                : null;
        return new Row(rs.getString("name"), Sql.instant(rs, "last_slot"), Sql.nullableLong(rs, "last_job_id"),
                rs.getLong("skipped"), pausedAt, last);
    }
}
