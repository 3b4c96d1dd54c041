package dev.converge.ledger.internal;

import static dev.converge.store.internal.Templates.sql;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.converge.ConvergeException;
import dev.converge.flow.FlowState;
import dev.converge.flow.internal.FlowStore;
import dev.converge.flow.internal.FlowTracker;
import dev.converge.ledger.LedgerEntry;
import dev.converge.ledger.LedgerState;
import dev.converge.ledger.RepetitionSafety;
import dev.converge.lease.JobLease;
import dev.converge.store.internal.Dialect;
import dev.converge.store.Params;
import dev.converge.store.Sql;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The SQL of {@code cv_ledger}. Every write is a compare-and-set on the entry's state and owner,
 * fenced by the writing delivery's lease: it applies only while that job is still running under
 * that epoch. Zero rows means "you no longer own this".
 */
public final class LedgerStore {
    private static final ObjectMapper JSON = dev.converge.queue.internal.JsonCodec.shared();
    /** Made once, not per row: resolving the generic type each time cost more than reading a small map. */
    private static final ObjectReader MAP = JSON.readerFor(new TypeReference<Map<String, Object>>() { });
    private static final String[] COLUMN_NAMES = {"id", "kind", "natural_key", "flow_id", "subject", "state", "safety",
        "leaf_id", "data", "generation", "owner_job_id", "owner_epoch", "last_error", "created_at", "updated_at",
        "confirmed_at"};
    private static final String COLUMNS = String.join(", ", COLUMN_NAMES);
    /** The writer's delivery is still the job's current one. */
    private static final String FENCE = " AND EXISTS (SELECT 1 FROM cv_job j WHERE j.id = :job AND j.epoch = :epoch "
            + "AND j.state = 'running')";
    /** The entry's recorded owner is the expected one (-1 stands for none). */
    private static final String OWNED_BY = " AND COALESCE(owner_job_id, -1) = :old_job AND COALESCE(owner_epoch, -1) = :old_epoch";

    private final Sql byKey;
    private final Sql byId;
    private final Sql byFlow;
    private final Sql bySubject;
    private final Sql insertClaim;
    /** The claim of a fresh key together with its compensation, in one statement; null where the dialect cannot. */
    private final Sql insertClaimInFlow;
    private final Sql reuse;
    private final Sql takeOver;
    private final Sql confirm;
    private final Sql markUncertain;
    private final Sql release;
    private final Sql startDeleting;
    private final Sql finishDeleting;
    private final Sql ownerAlive;
    private final Sql stale;
    private final Sql live;
    private final Sql settle;
    private final Sql createParams;
    private final Sql recordFound;

    public LedgerStore(Dialect d) {
        byKey = sql(d, "SELECT " + COLUMNS + " FROM cv_ledger WHERE kind = :kind AND natural_key = :key");
        byId = sql(d, "SELECT " + COLUMNS + " FROM cv_ledger WHERE id = :id");
        byFlow = sql(d, "SELECT " + COLUMNS + " FROM cv_ledger WHERE flow_id = :flow_id ORDER BY id");
        bySubject = sql(d, "SELECT " + COLUMNS + " FROM cv_ledger WHERE subject = :subject ORDER BY id");
        insertClaim = sql(d, "INSERT INTO cv_ledger (kind, natural_key, flow_id, subject, state, safety, owner_job_id, "
                + "owner_epoch, create_params, created_at, updated_at) SELECT :kind, :key, :flow_id, :subject, 'claimed', "
                + ":safety, :job, :epoch, :params, {now}, {now} FROM cv_job j WHERE j.id = :job AND j.epoch = :epoch AND j.state = 'running'"
                + d.onConflictDoNothing());
        insertClaimInFlow = d.writesThroughWith() ? sql(d, insertClaimInFlowSql()) : null;
        reuse = sql(d, "UPDATE cv_ledger SET state = 'claimed', generation = generation + 1, flow_id = :flow_id, "
                + "subject = :subject, safety = :safety, owner_job_id = :job, owner_epoch = :epoch, leaf_id = NULL, "
                + "create_params = :params, "
                + "data = NULL, last_error = NULL, confirmed_at = NULL, updated_at = {now} "
                + "WHERE id = :id AND state = :expected AND generation = :generation" + FENCE);
        takeOver = sql(d, "UPDATE cv_ledger SET owner_job_id = :job, owner_epoch = :epoch, "
                + "flow_id = COALESCE(:flow_id, flow_id), updated_at = {now} WHERE id = :id AND state = :expected"
                + OWNED_BY + FENCE);
        confirm = sql(d, "UPDATE cv_ledger SET state = 'confirmed', leaf_id = :leaf_id, data = :data, "
                + "last_error = NULL, confirmed_at = {now}, updated_at = {now} WHERE id = :id "
                + "AND state IN ('claimed', 'uncertain') AND owner_job_id = :job AND owner_epoch = :epoch" + FENCE);
        markUncertain = sql(d, "UPDATE cv_ledger SET state = 'uncertain', last_error = :error, updated_at = {now} "
                + "WHERE id = :id AND state IN ('claimed', 'uncertain') AND owner_job_id = :job AND owner_epoch = :epoch"
                + FENCE);
        release = sql(d, "UPDATE cv_ledger SET state = 'released', last_error = :error, updated_at = {now} "
                + "WHERE id = :id AND state IN ('claimed', 'uncertain', 'deleting') AND owner_job_id = :job "
                + "AND owner_epoch = :epoch" + FENCE);
        startDeleting = sql(d, "UPDATE cv_ledger SET state = 'deleting', owner_job_id = :job, owner_epoch = :epoch, "
                + "updated_at = {now} WHERE id = :id AND state = :expected" + OWNED_BY + FENCE);
        finishDeleting = sql(d, "UPDATE cv_ledger SET state = :to, last_error = :error, updated_at = {now} "
                + "WHERE id = :id AND state = 'deleting' AND owner_job_id = :job AND owner_epoch = :epoch" + FENCE);
        ownerAlive = sql(d, "SELECT 1 FROM cv_job WHERE id = :job AND epoch = :epoch AND state = 'running' "
                + "AND lease_expires_at > {now}");
        stale = sql(d, "SELECT " + COLUMNS + " FROM cv_ledger l WHERE state IN ('claimed', 'uncertain', 'deleting') "
                + "AND updated_at < {now+:minus_ms} AND NOT EXISTS (SELECT 1 FROM cv_job j WHERE j.id = l.owner_job_id "
                + "AND j.state IN ('running', 'available')) AND l.id > :after ORDER BY id LIMIT :limit");
        // a person settles an entry the machine could not: only while no delivery of its owner runs
        // (a stale one can no longer confirm it: it is no longer the owner), and only the generation seen
        settle = sql(d, "UPDATE cv_ledger SET state = :to, leaf_id = COALESCE(:leaf_id, leaf_id), last_error = :note, "
                + "owner_job_id = NULL, owner_epoch = NULL, updated_at = {now}, "
                + "confirmed_at = CASE WHEN :confirm THEN {now} ELSE confirmed_at END "
                + "WHERE id = :id AND state IN ('claimed', 'uncertain') AND generation = :generation "
                + "AND NOT EXISTS (SELECT 1 FROM cv_job j WHERE j.id = cv_ledger.owner_job_id AND j.state = 'running')");
        createParams = sql(d, "SELECT create_params FROM cv_ledger WHERE id = :id AND generation = :generation");
        // the resource a resent create answered with, kept before it is deleted: a teardown that dies
        // in between deletes it by id next time instead of resending a key the leaf may have forgotten
        recordFound = sql(d, "UPDATE cv_ledger SET leaf_id = :leaf_id, data = :data, updated_at = {now} WHERE id = :id "
                + "AND state = 'deleting' AND owner_job_id = :job AND owner_epoch = :epoch" + FENCE);
        live = sql(d, "SELECT " + COLUMNS + " FROM cv_ledger WHERE kind = :kind AND state IN "
                + "('claimed', 'uncertain', 'confirmed', 'deleting')");
    }

    public Optional<LedgerEntry> byKey(Connection c, String kind, String key) throws SQLException {
        return Optional.ofNullable(byKey.queryOne(c, Params.of().text("kind", kind).text("key", key), LedgerStore::entry));
    }

    public Optional<LedgerEntry> byId(Connection c, long id) throws SQLException {
        return Optional.ofNullable(byId.queryOne(c, Params.of().bigint("id", id), LedgerStore::entry));
    }

    public List<LedgerEntry> byFlow(Connection c, long flowId) throws SQLException {
        return byFlow.query(c, Params.of().bigint("flow_id", flowId), LedgerStore::entry);
    }

    public List<LedgerEntry> bySubject(Connection c, String subject) throws SQLException {
        return bySubject.query(c, Params.of().text("subject", subject), LedgerStore::entry);
    }

    /**
     * Inserts a claimed entry for this delivery and returns it as written; empty if the key is taken or
     * the delivery lost its lease. The row comes back from the insert itself, not from a read after it.
     */
    public Optional<LedgerEntry> insertClaim(Connection c, String kind, String key, Long flowId, String subject,
            RepetitionSafety safety, Map<String, Object> params, JobLease by, Instant now) throws SQLException {
        try {
            return returning(insertClaim, c, lease(by, now).text("kind", kind).text("key", key).bigint("flow_id", flowId)
                    .text("subject", subject).text("safety", safety.sql()).text("params", json(params)));
        } catch (SQLException e) {
            if ("23505".equals(e.getSQLState())) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /**
     * The claim of a key nobody holds yet by a step of a flow, with the compensation that tears it down, as
     * one statement: the flow's row share-locked and its state checked (the rule and lock of
     * {@code FlowTracker.admitCompensation}: a flow that has ended would never run the compensation), the
     * entry inserted for this delivery (fenced by its lease, as {@link #insertClaim}), the compensation
     * inserted with the entry's id in its payload, and the entry returned with the flow's state. In
     * autocommit the statement commits at once: the flow cannot end, nor its compensation decide what to
     * undo, between the check and the commit, and the entry never exists without its compensation. The
     * step's batch's state comes back too, read in the same snapshot: with the flow's, it answers whether the
     * step was called off (R7) without a round trip of its own. When the key is taken, the entry holding it
     * comes back too, as the statement's snapshot saw it (none when it was inserted by a transaction that
     * committed after the statement began: then the caller reads it).
     */
    private static String insertClaimInFlowSql() {
        StringBuilder accepting = new StringBuilder();
        for (FlowState s : FlowTracker.ACCEPTS_COMPENSATIONS) {
            accepting.append(accepting.length() == 0 ? "" : ", ").append('\'').append(s.sql()).append('\'');
        }
        StringBuilder returned = new StringBuilder();
        for (String col : COLUMN_NAMES) {
            returned.append(", c.").append(col);
        }
        for (String col : COLUMN_NAMES) {
            returned.append(", x.").append(col).append(" AS ").append(HELD).append(col);
        }
        return "WITH f AS (SELECT state FROM cv_flow WHERE id = :flow_id FOR SHARE), "
                + "c AS (INSERT INTO cv_ledger (kind, natural_key, flow_id, subject, state, safety, owner_job_id, "
                + "owner_epoch, create_params, created_at, updated_at) SELECT :kind, :key, :flow_id, :subject, 'claimed', "
                + ":safety, :job, :epoch, :params, {now}, {now} FROM cv_job j, f WHERE j.id = :job AND j.epoch = :epoch "
                + "AND j.state = 'running' AND f.state IN (" + accepting + ") ON CONFLICT DO NOTHING RETURNING " + COLUMNS
                + "), k AS (INSERT INTO cv_compensation (flow_id, kind, payload, state, created_at) "
                + "SELECT :flow_id, :comp_kind, CAST(:payload_before AS TEXT) || c.id || CAST(:payload_after AS TEXT), "
                + "'pending', {now} FROM c), "
                + "x AS (SELECT " + COLUMNS + " FROM cv_ledger WHERE kind = :kind AND natural_key = :key) "
                + "SELECT f.state AS flow_state, (SELECT state FROM cv_batch WHERE id = :batch_id) AS batch_state" + returned
                + " FROM (SELECT 1) one LEFT JOIN f ON true LEFT JOIN c ON true LEFT JOIN x ON c.id IS NULL";
    }

    /**
     * What {@link #insertClaimInFlow} did: the entry it claimed (empty if the key is taken, the delivery
     * lost its lease, or the flow refused), the flow's state (null if there is no such flow), and whether
     * the step was called off when it claimed (its batch cancelled, or its flow no longer running).
     */
    public record FlowClaim(Optional<LedgerEntry> claimed, FlowState flowState, boolean calledOff,
            Optional<LedgerEntry> held) {
    }

    /** The prefix of the columns of the entry that holds the key, in {@link #insertClaimInFlowSql()}. */
    private static final String HELD = "held_";

    /** A compensation as stored with the entry it undoes: its kind, and its payload around the entry's id. */
    public record CompensationOf(String kind, String payloadBefore, String payloadAfter) {
    }

    /** Whether {@link #insertClaimInFlow} is available (the dialect writes through {@code WITH}). */
    public boolean claimsInFlowAtOnce() {
        return insertClaimInFlow != null;
    }

    /** See {@link #insertClaimInFlowSql()}. */
    public FlowClaim insertClaimInFlow(Connection c, String kind, String key, long flowId, Long batchId, String subject,
            RepetitionSafety safety, Map<String, Object> params, CompensationOf compensation, JobLease by, Instant now)
            throws SQLException {
        Params p = lease(by, now).text("kind", kind).text("key", key).bigint("flow_id", flowId)
                .bigint("batch_id", batchId).text("subject", subject)
                .text("safety", safety.sql()).text("params", json(params)).text("comp_kind", compensation.kind())
                .text("payload_before", compensation.payloadBefore()).text("payload_after", compensation.payloadAfter());
        FlowClaim got = insertClaimInFlow.queryOne(c, p, rs -> {
            String state = rs.getString("flow_state");
            return new FlowClaim(rs.getObject("id") == null ? Optional.empty() : Optional.of(entry(rs, "")),
                    state == null ? null : FlowState.fromSql(state), FlowStore.calledOff(rs.getString("batch_state"), state),
                    rs.getObject(HELD + "id") == null ? Optional.empty() : Optional.of(entry(rs, HELD)));
        });
        return got == null ? new FlowClaim(Optional.empty(), null, true, Optional.empty()) : got;
    }

    /** Claims a deleted or released entry again for a new generation; the entry as written, or empty if refused. */
    public Optional<LedgerEntry> reuse(Connection c, LedgerEntry e, Long flowId, String subject, RepetitionSafety safety,
            Map<String, Object> params, JobLease by, Instant now) throws SQLException {
        return returning(reuse, c, lease(by, now).bigint("id", e.id()).text("expected", e.state().sql())
                .integer("generation", e.generation()).bigint("flow_id", flowId).text("subject", subject)
                .text("safety", safety.sql()).text("params", json(params)));
    }

    /** Runs a fenced write of one entry and returns the entry as that write left it; empty if it applied to no row. */
    private static Optional<LedgerEntry> returning(Sql sql, Connection c, Params p) throws SQLException {
        try (java.sql.PreparedStatement ps = sql.prepareReturning(c, p, COLUMN_NAMES)) {
            if (ps.executeUpdate() != 1) {
                return Optional.empty();
            }
            try (java.sql.ResultSet rs = ps.getGeneratedKeys()) {
                return rs.next() ? Optional.of(entry(rs)) : Optional.empty();
            }
        }
    }

    /**
     * The parameters kept at the claim of this generation of the entry (see {@code insertClaim}):
     * empty if none were kept (a type whose create is not resent) or the entry moved to another generation.
     */
    public Optional<Map<String, Object>> createParams(Connection c, LedgerEntry e) throws SQLException {
        String raw = createParams.queryOne(c, Params.of().bigint("id", e.id()).integer("generation", e.generation()),
                rs -> rs.getString("create_params"));
        return Optional.ofNullable(map(raw, "stored create parameters are unreadable"));
    }

    /** Records what the leaf answered for an entry this delivery is tearing down. */
    public boolean recordFound(Connection c, long id, String leafId, Map<String, Object> data, JobLease by, Instant now)
            throws SQLException {
        return recordFound.update(c, lease(by, now).bigint("id", id).text("leaf_id", leafId).text("data", json(data))) == 1;
    }

    /** Makes this delivery the owner of an unconfirmed entry whose previous owner is gone. */
    public boolean takeOver(Connection c, LedgerEntry e, Long flowId, JobLease by, Instant now) throws SQLException {
        return takeOverReturning(c, e, flowId, by, now).isPresent();
    }

    /** As {@link #takeOver}, returning the entry as the takeover left it. */
    public Optional<LedgerEntry> takeOverReturning(Connection c, LedgerEntry e, Long flowId, JobLease by, Instant now)
            throws SQLException {
        return returning(takeOver, c, owned(lease(by, now), e).bigint("id", e.id()).text("expected", e.state().sql())
                .bigint("flow_id", flowId));
    }

    public boolean confirm(Connection c, long id, String leafId, Map<String, Object> data, JobLease by, Instant now)
            throws SQLException {
        return confirmReturning(c, id, leafId, data, by, now).isPresent();
    }

    /** As {@link #confirm}, returning the confirmed entry as written: no read after the write. */
    public Optional<LedgerEntry> confirmReturning(Connection c, long id, String leafId, Map<String, Object> data,
            JobLease by, Instant now) throws SQLException {
        return returning(confirm, c, lease(by, now).bigint("id", id).text("leaf_id", leafId).text("data", json(data)));
    }

    public boolean markUncertain(Connection c, long id, String error, JobLease by, Instant now) throws SQLException {
        return markUncertain.update(c, lease(by, now).bigint("id", id).text("error", truncate(error))) == 1;
    }

    public boolean release(Connection c, long id, String error, JobLease by, Instant now) throws SQLException {
        return release.update(c, lease(by, now).bigint("id", id).text("error", truncate(error))) == 1;
    }

    /** Moves an entry to deleting under this delivery, if it is still as the caller saw it. */
    public boolean startDeleting(Connection c, LedgerEntry e, JobLease by, Instant now) throws SQLException {
        return startDeleting.update(c, owned(lease(by, now), e).bigint("id", e.id()).text("expected", e.state().sql())) == 1;
    }

    public boolean finishDeleting(Connection c, long id, LedgerState to, String error, JobLease by, Instant now)
            throws SQLException {
        return finishDeleting.update(c, lease(by, now).bigint("id", id).text("to", to.sql())
                .text("error", truncate(error))) == 1;
    }

    /**
     * A person's settlement of an unresolved entry: confirmed with the leaf's id it was found
     * under, or released because it does not exist; false if the entry moved on (or its owner runs).
     */
    public boolean settle(Connection c, LedgerEntry e, String leafId, String note, Instant now) throws SQLException {
        boolean exists = leafId != null;
        return settle.update(c, Params.of().now(now).bigint("id", e.id()).integer("generation", e.generation())
                .text("to", exists ? LedgerState.CONFIRMED.sql() : LedgerState.RELEASED.sql()).text("leaf_id", leafId)
                .bool("confirm", exists).text("note", truncate(note))) == 1;
    }

    /** Whether the delivery that owns an entry is alive: running, same epoch, lease not expired. */
    public boolean ownerAlive(Connection c, LedgerEntry e, Instant now) throws SQLException {
        if (e.ownerJobId() == null || e.ownerEpoch() == null) {
            return false;
        }
        return ownerAlive.queryOne(c, Params.of().now(now).bigint("job", e.ownerJobId()).bigint("epoch", e.ownerEpoch()),
                rs -> Boolean.TRUE) != null;
    }

    /**
     * Unresolved entries older than the bound whose owning job has ended (it will not come back to
     * them), in id order after {@code afterId}: the reaper pages past entries it cannot settle.
     */
    public List<LedgerEntry> stale(Connection c, long olderThanMs, long afterId, int limit, Instant now)
            throws SQLException {
        return stale.query(c, Params.of().now(now).bigint("minus_ms", -olderThanMs).bigint("after", afterId)
                .integer("limit", limit), LedgerStore::entry);
    }

    /** Entries of a kind that own (or may own) a resource at the leaf. */
    public List<LedgerEntry> live(Connection c, String kind) throws SQLException {
        return live.query(c, Params.of().text("kind", kind), LedgerStore::entry);
    }

    private static Params lease(JobLease by, Instant now) {
        return Params.of().now(now).bigint("job", by.jobId()).bigint("epoch", by.epoch());
    }

    private static Params owned(Params p, LedgerEntry e) {
        return p.bigint("old_job", e.ownerJobId() == null ? -1L : e.ownerJobId())
                .bigint("old_epoch", e.ownerEpoch() == null ? -1L : e.ownerEpoch());
    }

    static String truncate(String s) {
        return s == null || s.length() <= 4000 ? s : s.substring(0, 4000) + "...";
    }

    private static String json(Map<String, Object> data) {
        try {
            return data == null ? null : JSON.writeValueAsString(data);
        } catch (JsonProcessingException e) {
            throw new ConvergeException("leaf data does not serialize", e);
        }
    }

    private static Map<String, Object> map(String raw, String unreadable) {
        if (raw == null) {
            return null;
        }
        try {
            return MAP.readValue(raw);
        } catch (JsonProcessingException e) {
            throw new ConvergeException(unreadable, e);
        }
    }

    private static LedgerEntry entry(java.sql.ResultSet rs) throws SQLException {
        return entry(rs, "");
    }

    /** The entry in the columns named with this prefix. */
    private static LedgerEntry entry(java.sql.ResultSet rs, String p) throws SQLException {
        Map<String, Object> data = map(rs.getString(p + "data"), "stored leaf data is unreadable");
        return new LedgerEntry(rs.getLong(p + "id"), rs.getString(p + "kind"), rs.getString(p + "natural_key"),
                Sql.nullableLong(rs, p + "flow_id"), rs.getString(p + "subject"), LedgerState.fromSql(rs.getString(p + "state")),
                RepetitionSafety.fromSql(rs.getString(p + "safety")), rs.getString(p + "leaf_id"), data,
                rs.getInt(p + "generation"), Sql.nullableLong(rs, p + "owner_job_id"), Sql.nullableLong(rs, p + "owner_epoch"),
                rs.getString(p + "last_error"), Sql.instant(rs, p + "created_at"), Sql.instant(rs, p + "updated_at"),
                Sql.instant(rs, p + "confirmed_at"));
    }
}
