package dev.converge.flow.internal;

import static dev.converge.store.internal.Templates.sql;

import dev.converge.batch.internal.JobSpec;
import dev.converge.flow.Compensation;
import dev.converge.flow.FlowEvent;
import dev.converge.flow.FlowState;
import dev.converge.flow.FlowView;
import dev.converge.lease.JobLease;
import dev.converge.store.internal.Dialect;
import dev.converge.store.Params;
import dev.converge.store.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The SQL of {@code cv_flow}, {@code cv_flow_event} and {@code cv_compensation}. A flow changes
 * state only by a conditional update from the state the caller expects, so of any number of
 * parties that decide to fail the same flow, exactly one wins.
 */
public final class FlowStore {
    private static final String COLUMNS = "id, kind, subject, state, deadline, chain_id, failure_reason, attention, "
            + "on_success, on_failure, created_at, updated_at, finished_at";

    /** A flow row with its reporting hooks. */
    public record FlowRow(FlowView view, JobSpec onSuccess, JobSpec onFailure) {
    }

    private final Dialect dialect;
    private final Sql insert;
    private final Sql get;
    private final Sql bySubject;
    private final Sql setChain;
    private final Sql transition;
    private final Sql attention;
    private final Sql event;
    private final Sql history;
    private final Sql overdue;
    private final Sql addCompensation;
    private final Sql nextCompensation;
    private final Sql endCompensation;
    private final Sql compensationFailedAttempt;
    private final Sql compensations;
    private final Sql cancelLooseJobs;
    private final Sql lockRunningBatches;
    private final Sql lockRunningChain;
    private final Sql states;
    private final Sql lockState;
    private final Sql shareState;
    private final Sql overdueCompensating;
    private final Sql compensationDeadline;
    private final Sql notDone;
    private final Sql runningSteps;
    private final Sql reopen;
    private final Sql resetGaveUp;
    private final Sql retries;

    public FlowStore(Dialect d) {
        this.dialect = d;
        insert = sql(d, "INSERT INTO cv_flow (kind, subject, state, deadline, on_success, on_failure, created_at, "
                + "updated_at) VALUES (:kind, :subject, 'running', CASE WHEN :has_deadline THEN {now+:deadline_ms} END, "
                + ":on_success, :on_failure, {now}, {now})" + d.onConflictDoNothing());
        get = sql(d, "SELECT " + COLUMNS + " FROM cv_flow WHERE id = :id");
        bySubject = sql(d, "SELECT " + COLUMNS + " FROM cv_flow WHERE kind = :kind AND subject = :subject");
        setChain = sql(d, "UPDATE cv_flow SET chain_id = :chain_id WHERE id = :id");
        transition = sql(d, "UPDATE cv_flow SET state = :to, updated_at = {now}, "
                + "failure_reason = COALESCE(:reason, failure_reason), "
                + "finished_at = CASE WHEN :terminal THEN {now} ELSE finished_at END WHERE id = :id AND state = :from");
        attention = sql(d, "UPDATE cv_flow SET attention = COALESCE(attention, :reason), updated_at = {now} WHERE id = :id");
        event = sql(d, "INSERT INTO cv_flow_event (flow_id, at, from_state, to_state, reason, actor) "
                + "VALUES (:flow_id, {now}, :from, :to, :reason, :actor)");
        history = sql(d, "SELECT id, flow_id, at, from_state, to_state, reason, actor FROM cv_flow_event "
                + "WHERE flow_id = :flow_id ORDER BY id");
        overdue = sql(d, "SELECT id FROM cv_flow WHERE state = 'running' AND deadline < {now} ORDER BY deadline "
                + "LIMIT :limit");
        addCompensation = sql(d, "INSERT INTO cv_compensation (flow_id, kind, payload, state, created_at) "
                + "VALUES (:flow_id, :kind, :payload, 'pending', {now})");
        nextCompensation = sql(d, "SELECT id, flow_id, kind, payload, state, attempts, last_error, created_at, "
                + "finished_at FROM cv_compensation WHERE flow_id = :flow_id AND state = 'pending' ORDER BY id DESC LIMIT 1");
        // fenced by the compensating delivery's lease: a stale delivery must not spend attempts or give up
        String fence = " AND EXISTS (SELECT 1 FROM cv_job WHERE cv_job.id = :job_id AND cv_job.epoch = :epoch "
                + "AND cv_job.state = 'running')";
        endCompensation = sql(d, "UPDATE cv_compensation SET state = :state, last_error = COALESCE(:error, last_error), "
                + "finished_at = {now} WHERE id = :id AND state = 'pending'" + fence);
        compensationFailedAttempt = sql(d, "UPDATE cv_compensation SET attempts = attempts + 1, last_error = :error "
                + "WHERE id = :id AND state = 'pending'" + fence);
        compensations = sql(d, "SELECT id, flow_id, kind, payload, state, attempts, last_error, created_at, "
                + "finished_at FROM cv_compensation WHERE flow_id = :flow_id ORDER BY id");
        cancelLooseJobs = sql(d, "UPDATE cv_job SET state = 'cancelled', finished_at = {now}, last_error = :reason "
                + "WHERE flow_id = :flow_id AND batch_id IS NULL AND state = 'available'");
        // a completion locks a batch (its counters), then the chain the batch is a link of, then the flow:
        // failing a flow takes them in the same order, so the two never wait for each other in a circle
        lockRunningBatches = sql(d, "SELECT id FROM cv_batch WHERE flow_id = :flow_id AND state = 'running' "
                + "ORDER BY id FOR UPDATE");
        lockRunningChain = sql(d, "SELECT id FROM cv_chain WHERE flow_id = :flow_id AND state = 'running' "
                + "ORDER BY id FOR UPDATE");
        overdueCompensating = sql(d, "SELECT id FROM cv_flow WHERE state = 'compensating' AND deadline < {now} "
                + "ORDER BY deadline LIMIT :limit");
        // a flow failed by its deadline is past it already: its compensation gets a deadline of its own
        compensationDeadline = sql(d, "UPDATE cv_flow SET deadline = {now+:deadline_ms} WHERE id = :id");
        notDone = sql(d, "SELECT COUNT(*) FROM cv_compensation WHERE flow_id = :flow_id AND state <> 'done'");
        lockState = sql(d, "SELECT state FROM cv_flow WHERE id = :id FOR UPDATE");
        shareState = sql(d, "SELECT state FROM cv_flow WHERE id = :id" + d.forShare());
        // a person's retry: the one way out of needs_attention, back into compensation, once
        reopen = sql(d, "UPDATE cv_flow SET state = 'compensating', attention = NULL, retries = retries + 1, "
                + "finished_at = NULL, updated_at = {now}, deadline = {now+:deadline_ms} "
                + "WHERE id = :id AND state = 'needs_attention'");
        resetGaveUp = sql(d, "UPDATE cv_compensation SET state = 'pending', attempts = 0, finished_at = NULL "
                + "WHERE flow_id = :flow_id AND state = 'failed'");
        retries = sql(d, "SELECT retries FROM cv_flow WHERE id = :id");
        runningSteps = sql(d, "SELECT COUNT(*) FROM cv_job WHERE flow_id = :flow_id AND state = 'running'");
        states = sql(d, "SELECT (SELECT state FROM cv_batch WHERE id = :batch_id) AS batch_state, "
                + "(SELECT state FROM cv_flow WHERE id = :flow_id) AS flow_state");
    }

    /** Inserts a running flow; empty if one already exists for this kind and subject. */
    public Optional<Long> insert(Connection c, String kind, String subject, Long deadlineMs, JobSpec onSuccess,
            JobSpec onFailure, Instant now) throws SQLException {
        Params p = Params.of().now(now).text("kind", kind).text("subject", subject)
                .bool("has_deadline", deadlineMs != null).bigint("deadline_ms", deadlineMs == null ? 0L : deadlineMs)
                .text("on_success", onSuccess == null ? null : onSuccess.toJson())
                .text("on_failure", onFailure == null ? null : onFailure.toJson());
        try (PreparedStatement ps = insert.prepareReturning(c, p, "id")) {
            if (ps.executeUpdate() == 0) {
                return Optional.empty();
            }
            try (ResultSet rs = ps.getGeneratedKeys()) {
                rs.next();
                return Optional.of(rs.getLong(1));
            }
        } catch (SQLException e) {
            if ("23505".equals(e.getSQLState()) && !dialect.conflictAbortsTransaction()) {
                return Optional.empty();
            }
            throw e;
        }
    }

    public Optional<FlowRow> get(Connection c, long id) throws SQLException {
        return Optional.ofNullable(get.queryOne(c, Params.of().bigint("id", id), FlowStore::row));
    }

    public Optional<FlowRow> bySubject(Connection c, String kind, String subject) throws SQLException {
        return Optional.ofNullable(bySubject.queryOne(c, Params.of().text("kind", kind).text("subject", subject),
                FlowStore::row));
    }

    public void setChain(Connection c, long id, long chainId) throws SQLException {
        setChain.update(c, Params.of().bigint("id", id).bigint("chain_id", chainId));
    }

    /** Moves the flow from {@code from} to {@code to} and records why; false if it was not in {@code from}. */
    public boolean transition(Connection c, long id, FlowState from, FlowState to, String reason, Instant now)
            throws SQLException {
        if (!from.canMoveTo(to)) {
            throw new IllegalStateException("flow transition " + from + " -> " + to + " is not allowed");
        }
        int n = transition.update(c, Params.of().now(now).bigint("id", id).text("from", from.sql()).text("to", to.sql())
                .text("reason", to == FlowState.COMPENSATING ? reason : null).bool("terminal", to.isTerminal()));
        if (n == 1) {
            addEvent(c, id, from, to, reason, now);
        }
        return n == 1;
    }

    public void addEvent(Connection c, long flowId, FlowState from, FlowState to, String reason, Instant now)
            throws SQLException {
        addEvent(c, flowId, from, to, reason, null, now);
    }

    /** A history entry made by a person ({@code actor}), or by the engine when it is null. */
    public void addEvent(Connection c, long flowId, FlowState from, FlowState to, String reason, String actor,
            Instant now) throws SQLException {
        event.update(c, Params.of().now(now).bigint("flow_id", flowId).text("from", from == null ? null : from.sql())
                .text("to", to.sql()).text("reason", truncate(reason)).text("actor", actor));
    }

    /**
     * Moves a flow that needs attention back to compensating, clearing its attention and giving
     * its compensation a fresh deadline; false if it was not in needs_attention (another retry won).
     */
    public boolean reopen(Connection c, long flowId, long deadlineMs, Instant now) throws SQLException {
        return reopen.update(c, Params.of().now(now).bigint("id", flowId).bigint("deadline_ms", deadlineMs)) == 1;
    }

    /** Makes the flow's compensations that gave up pending again, with their attempts counted afresh. */
    public int resetGaveUp(Connection c, long flowId) throws SQLException {
        return resetGaveUp.update(c, Params.of().bigint("flow_id", flowId));
    }

    /** How many times a person restarted the flow. */
    /** How many of the jobs with these unique keys are running. */
    public int runningJobs(Connection c, List<String> uniqueKeys) throws SQLException {
        if (uniqueKeys.isEmpty()) {
            return 0;
        }
        Params p = Params.of();
        Integer n = sql(dialect, "SELECT COUNT(*) FROM cv_job WHERE state = 'running' AND unique_key IN ("
                + keyList(p, uniqueKeys) + ")").queryOne(c, p, rs -> rs.getInt(1));
        return n == null ? 0 : n;
    }

    /** Cancels those of the jobs with these unique keys that wait to run; returns how many. */
    public int cancelWaitingJobs(Connection c, List<String> uniqueKeys, String reason, Instant now) throws SQLException {
        if (uniqueKeys.isEmpty()) {
            return 0;
        }
        Params p = Params.of().now(now).text("reason", reason);
        return sql(dialect, "UPDATE cv_job SET state = 'cancelled', finished_at = {now}, last_error = :reason "
                + "WHERE state = 'available' AND unique_key IN (" + keyList(p, uniqueKeys) + ")").update(c, p);
    }

    /** Binds the keys as :key0, :key1, ... (a retried flow's few rounds: the statement is not kept). */
    private static String keyList(Params p, List<String> keys) {
        p.texts("key", keys.toArray(String[]::new));
        return Params.names("key", keys.size());
    }

    public int retries(Connection c, long flowId) throws SQLException {
        Integer n = retries.queryOne(c, Params.of().bigint("id", flowId), rs -> rs.getInt(1));
        return n == null ? 0 : n;
    }

    public void flagAttention(Connection c, long flowId, String reason, Instant now) throws SQLException {
        attention.update(c, Params.of().now(now).bigint("id", flowId).text("reason", truncate(reason)));
    }

    public List<FlowEvent> history(Connection c, long flowId) throws SQLException {
        return history.query(c, Params.of().bigint("flow_id", flowId), rs -> new FlowEvent(rs.getLong("id"),
                rs.getLong("flow_id"), Sql.instant(rs, "at"),
                rs.getString("from_state") == null ? null : FlowState.fromSql(rs.getString("from_state")),
                FlowState.fromSql(rs.getString("to_state")), rs.getString("reason"), rs.getString("actor")));
    }

    public List<Long> overdue(Connection c, int limit, Instant now) throws SQLException {
        return overdue.query(c, Params.of().now(now).integer("limit", limit), rs -> rs.getLong(1));
    }

    public void addCompensation(Connection c, long flowId, JobSpec spec, Instant now) throws SQLException {
        addCompensation.update(c, Params.of().now(now).bigint("flow_id", flowId).text("kind", spec.kind())
                .text("payload", spec.payload()));
    }

    /** The newest compensation not yet ended: compensations run in reverse order of registration. */
    public Optional<Compensation> nextCompensation(Connection c, long flowId) throws SQLException {
        return Optional.ofNullable(nextCompensation.queryOne(c, Params.of().bigint("flow_id", flowId), FlowStore::compensation));
    }

    /**
     * Ends a pending compensation, fenced by the lease of the compensating delivery; false if that
     * delivery no longer holds its job (or the compensation was ended already): nothing changed.
     */
    public boolean endCompensation(Connection c, long id, boolean done, String error, JobLease by, Instant now)
            throws SQLException {
        return endCompensation.update(c, Params.of().now(now).bigint("id", id).text("state", done ? "done" : "failed")
                .text("error", truncate(error)).bigint("job_id", by.jobId()).bigint("epoch", by.epoch())) == 1;
    }

    /** Counts a failed attempt of a pending compensation, fenced like {@link #endCompensation}. */
    public boolean compensationFailedAttempt(Connection c, long id, String error, JobLease by) throws SQLException {
        return compensationFailedAttempt.update(c, Params.of().bigint("id", id).text("error", truncate(error))
                .bigint("job_id", by.jobId()).bigint("epoch", by.epoch())) == 1;
    }

    public List<Compensation> compensations(Connection c, long flowId) throws SQLException {
        return compensations.query(c, Params.of().bigint("flow_id", flowId), FlowStore::compensation);
    }

    /**
     * The flow's state, its row locked until the caller's transaction ends: registering a
     * compensation and ending a compensating flow take this lock, so neither misses the other.
     */
    public FlowState lockState(Connection c, long flowId) throws SQLException {
        String s = lockState.queryOne(c, Params.of().bigint("id", flowId), rs -> rs.getString(1));
        if (s == null) {
            throw new IllegalStateException("flow " + flowId + " does not exist");
        }
        return FlowState.fromSql(s);
    }

    /**
     * The flow's state, its row share-locked until the caller's transaction ends: steps of one flow
     * registering compensations at once do not wait for each other, while the flow's state cannot
     * change (nor a compensating flow end, which takes {@link #lockState}) until they commit.
     */
    public FlowState shareState(Connection c, long flowId) throws SQLException {
        String s = shareState.queryOne(c, Params.of().bigint("id", flowId), rs -> rs.getString(1));
        if (s == null) {
            throw new IllegalStateException("flow " + flowId + " does not exist");
        }
        return FlowState.fromSql(s);
    }

    /** Compensating flows whose compensation deadline passed, oldest first. */
    public List<Long> overdueCompensating(Connection c, int limit, Instant now) throws SQLException {
        return overdueCompensating.query(c, Params.of().now(now).integer("limit", limit), rs -> rs.getLong(1));
    }

    /** Gives a flow that starts compensating a deadline of its own, {@code ms} from now. */
    public void compensationDeadline(Connection c, long flowId, long ms, Instant now) throws SQLException {
        compensationDeadline.update(c, Params.of().now(now).bigint("id", flowId).bigint("deadline_ms", ms));
    }

    /** How many of the flow's compensations are pending or gave up. */
    public long compensationsNotDone(Connection c, long flowId) throws SQLException {
        return notDone.queryOne(c, Params.of().bigint("flow_id", flowId), rs -> rs.getLong(1));
    }

    /** How many of the flow's steps are running now (a live lease, or an expired one not yet rescued). */
    public long runningSteps(Connection c, long flowId) throws SQLException {
        return runningSteps.queryOne(c, Params.of().bigint("flow_id", flowId), rs -> rs.getLong(1));
    }

    /** Cancels the flow's jobs that are not in a batch and have not started. */
    public int cancelLooseJobs(Connection c, long flowId, String reason, Instant now) throws SQLException {
        return cancelLooseJobs.update(c, Params.of().now(now).bigint("flow_id", flowId).text("reason", truncate(reason)));
    }

    /**
     * Locks the flow's running batches, then its running chain: the rows a completion locks before it
     * reaches the flow's own row. Whoever fails the flow calls this before locking the flow's row.
     */
    public void lockRunningParts(Connection c, long flowId) throws SQLException {
        Params p = Params.of().bigint("flow_id", flowId);
        lockRunningBatches.query(c, p, rs -> rs.getLong(1));
        lockRunningChain.query(c, p, rs -> rs.getLong(1));
    }

    /**
     * Whether a job's work was called off: its batch was cancelled, or its flow is no longer
     * running (either may be null). One round trip for both.
     */
    public boolean cancelled(Connection c, Long batchId, Long flowId) throws SQLException {
        return states.queryOne(c, Params.of().bigint("batch_id", batchId).bigint("flow_id", flowId),
                rs -> calledOff(rs.getString("batch_state"), rs.getString("flow_state")));
    }

    /** Whether a step is called off, from its batch's and its flow's states as stored (either may be null). */
    public static boolean calledOff(String batchState, String flowState) {
        return "cancelled".equals(batchState) || (flowState != null && !"running".equals(flowState));
    }

    static String truncate(String s) {
        return s == null || s.length() <= 4000 ? s : s.substring(0, 4000) + "...";
    }

    private static Compensation compensation(ResultSet rs) throws SQLException {
        return new Compensation(rs.getLong("id"), rs.getLong("flow_id"), rs.getString("kind"), rs.getString("payload"),
                rs.getString("state"), rs.getInt("attempts"), rs.getString("last_error"), Sql.instant(rs, "created_at"),
                Sql.instant(rs, "finished_at"));
    }

    private static FlowRow row(ResultSet rs) throws SQLException {
        FlowView v = new FlowView(rs.getLong("id"), rs.getString("kind"), rs.getString("subject"),
                FlowState.fromSql(rs.getString("state")), Sql.instant(rs, "deadline"), Sql.nullableLong(rs, "chain_id"),
                rs.getString("failure_reason"), rs.getString("attention"), Sql.instant(rs, "created_at"),
                Sql.instant(rs, "updated_at"), Sql.instant(rs, "finished_at"));
        return new FlowRow(v, JobSpec.fromJson(rs.getString("on_success")), JobSpec.fromJson(rs.getString("on_failure")));
    }
}
