package dev.converge.provisioning.conversation;

import dev.converge.Converge;
import dev.converge.flow.Flow;
import dev.converge.flow.FlowRun;
import dev.converge.provisioning.conversation.TurnJobs.TurnRef;
import dev.converge.provisioning.validation.InvalidField;
import dev.converge.queue.Job;
import dev.converge.store.Store;
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
 * A tenant's conversations with the assistant and their stored transcripts. A person's message
 * starts one turn, atomically with its flow (the turn job, one attempt, and its failure report);
 * a conversation runs one turn at a time. Every read is scoped by tenant.
 */
public final class Conversations {
    public static final int MAX_MESSAGE = 8_000;

    /** What a person's message started; {@code publicId} is the conversation's name outside ({@code conv_...}). */
    public record Started(long conversationId, String publicId, long turnId, int turn) {
    }

    /** A conversation's public id: {@code conv_} and 32 hex digits, random. */

    /** The conversation does not exist for this tenant. */
    public static final class NotFound extends RuntimeException {
        public NotFound() {
            super(null, null, false, false);
        }
    }

    /** A turn of the conversation is still running. */
    public static final class TurnRunning extends RuntimeException {
        private final int turn;

        public TurnRunning(int turn) {
            super(null, null, false, false);
            this.turn = turn;
        }

        public int turn() {
            return turn;
        }
    }

    /** A turn as stored. */
    public record Turn(long id, long conversationId, long tenantId, int seq, String state, int steps, String error,
            Instant createdAt, Instant endedAt) {
        public boolean running() {
            return TurnState.RUNNING.equals(state);
        }
    }

    /** One line of a transcript, in order. */
    public record Entry(long id, long turnId, String kind, String content, String toolCalls, String callId,
            String toolName, String arguments, String state, Boolean error, String result, Instant createdAt,
            Instant endedAt) {
    }

    /** The turn states. */
    public static final class TurnState {
        public static final String RUNNING = "running";
        public static final String ANSWERED = "answered";
        public static final String BUDGET_SPENT = "budget_spent";
        public static final String FAILED = "failed";

        private TurnState() {
        }
    }

    private final Store store;
    private final Converge engine;
    private final TurnJobs jobs;
    private final java.time.Duration turnDeadline;

    private final Sql insertConversation;
    private final Sql admit;
    private final Sql insertTurn;
    private final Sql setFlow;
    private final Sql insertEntry;
    private final Sql getConversation;
    private final Sql byPublicId;
    private final Sql getTurn;
    private final Sql turns;
    private final Sql entries;
    private final Sql startTool;
    private final Sql finishTool;
    private final Sql step;
    private final Sql endTurn;
    private final Sql release;
    private final Sql markRunning;

    public Conversations(Store store, Converge engine, TurnJobs jobs, java.time.Duration turnDeadline) {
        this.store = store;
        this.engine = engine;
        this.jobs = jobs;
        this.turnDeadline = turnDeadline;
        insertConversation = Sql.of(store, "INSERT INTO pv_conversation (tenant_id, turns, running_turn, created_at, "
                + "updated_at) VALUES (:tenant_id, 0, NULL, {now}, {now})");
        // admits a turn only when none runs: the conversation's one-at-a-time rule, in one statement
        admit = Sql.of(store, "UPDATE pv_conversation SET turns = turns + 1, running_turn = -1, updated_at = {now} "
                + "WHERE id = :id AND tenant_id = :tenant_id AND running_turn IS NULL");
        insertTurn = Sql.of(store, "INSERT INTO pv_turn (conversation_id, seq, state, steps, created_at) "
                + "SELECT id, turns, 'running', 0, {now} FROM pv_conversation WHERE id = :id");
        setFlow = Sql.of(store, "UPDATE pv_turn SET flow_id = :flow_id WHERE id = :id");
        insertEntry = Sql.of(store, "INSERT INTO pv_transcript (conversation_id, turn_id, kind, content, tool_calls, "
                + "created_at) VALUES (:conversation_id, :turn_id, :kind, :content, :tool_calls, {now})");
        getConversation = Sql.of(store, "SELECT id, tenant_id, turns, running_turn, created_at, updated_at, public_id "
                + "FROM pv_conversation WHERE id = :id AND tenant_id = :tenant_id");
        byPublicId = Sql.of(store, "SELECT id FROM pv_conversation WHERE public_id = :public_id AND tenant_id = :tenant_id");
        getTurn = Sql.of(store, "SELECT t.id, t.conversation_id, c.tenant_id, t.seq, t.state, t.steps, t.error, "
                + "t.created_at, t.ended_at FROM pv_turn t JOIN pv_conversation c ON c.id = t.conversation_id "
                + "WHERE t.id = :id");
        turns = Sql.of(store, "SELECT t.id, t.conversation_id, c.tenant_id, t.seq, t.state, t.steps, t.error, "
                + "t.created_at, t.ended_at FROM pv_turn t JOIN pv_conversation c ON c.id = t.conversation_id "
                + "WHERE t.conversation_id = :id ORDER BY t.seq");
        entries = Sql.of(store, "SELECT id, turn_id, kind, content, tool_calls, call_id, tool_name, arguments, state, "
                + "is_error, result, created_at, ended_at FROM pv_transcript WHERE conversation_id = :id ORDER BY id");
        // a tool call is recorded before it runs, once per turn and only while the turn runs
        startTool = Sql.of(store, "INSERT INTO pv_transcript (conversation_id, turn_id, kind, call_id, tool_name, "
                + "arguments, state, created_at) SELECT t.conversation_id, t.id, 'tool', :call_id, :tool_name, "
                + ":arguments, 'started', {now} FROM pv_turn t WHERE t.id = :turn_id AND t.state = 'running' "
                + "AND NOT EXISTS (SELECT 1 FROM pv_transcript x WHERE x.turn_id = :turn_id AND x.call_id = :call_id)");
        finishTool = Sql.of(store, "UPDATE pv_transcript SET state = 'done', is_error = :is_error, content = :content, "
                + "result = :result, ended_at = {now} WHERE turn_id = :turn_id AND call_id = :call_id AND state = 'started'");
        step = Sql.of(store, "UPDATE pv_turn SET steps = steps + 1 WHERE id = :id AND state = 'running'");
        endTurn = Sql.of(store, "UPDATE pv_turn SET state = :state, error = :error, ended_at = {now} "
                + "WHERE id = :id AND state = 'running'");
        markRunning = Sql.of(store, "UPDATE pv_conversation SET running_turn = :turn_id WHERE id = :id");
        release = Sql.of(store, "UPDATE pv_conversation SET running_turn = NULL, updated_at = {now} "
                + "WHERE id = :id AND running_turn = :turn_id");
    }

    /** A new conversation whose first turn answers {@code message}. */
    public Started start(long tenantId, String message) {
        String text = validMessage(message);
        return store.inTransaction(c -> {
            long id;
            try (PreparedStatement ps = insertConversation.prepareReturning(c, params().bigint("tenant_id", tenantId), "id")) {
                ps.executeUpdate();
                try (ResultSet rs = ps.getGeneratedKeys()) {
                    rs.next();
                    id = rs.getLong(1);
                }
            }
            return admitTurn(c, tenantId, id, text);
        });
    }

    /** The next turn of a conversation, answering {@code message}. */
    public Started send(long tenantId, long conversationId, String message) {
        String text = validMessage(message);
        return store.inTransaction(c -> admitTurn(c, tenantId, conversationId, text));
    }

    private Started admitTurn(Connection c, long tenantId, long conversationId, String text) throws SQLException {
        if (admit.update(c, params().bigint("id", conversationId).bigint("tenant_id", tenantId)) == 0) {
            Optional<Long> running = getConversation.queryOne(c, params().bigint("id", conversationId)
                    .bigint("tenant_id", tenantId), rs -> Optional.ofNullable(Sql.nullableLong(rs, "running_turn")));
            if (running == null) {
                throw new NotFound();
            }
            throw new TurnRunning(running.map(t -> {
                try {
                    return runningSeq(c, t);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }).orElse(0));
        }
        long turnId;
        try (PreparedStatement ps = insertTurn.prepareReturning(c, params().bigint("id", conversationId), "id")) {
            ps.executeUpdate();
            try (ResultSet rs = ps.getGeneratedKeys()) {
                rs.next();
                turnId = rs.getLong(1);
            }
        }
        markRunning.update(c, Params.of().bigint("turn_id", turnId).bigint("id", conversationId));
        insertEntry.update(c, params().bigint("conversation_id", conversationId).bigint("turn_id", turnId)
                .text("kind", "user").text("content", text).text("tool_calls", null));
        Turn turn = getTurn.queryOne(c, Params.of().bigint("id", turnId), Conversations::turn);
        TurnRef ref = new TurnRef(conversationId, turnId);
        FlowRun run = engine.flows().start(c, Flow.of(TurnJobs.FLOW, "conversation/" + conversationId + "/turn/" + turn.seq())
                .deadline(turnDeadline)
                .then(Job.of(jobs.turn, ref))
                .onFailure(Job.of(jobs.turnFailed, ref)));
        setFlow.update(c, Params.of().bigint("flow_id", run.flowId()).bigint("id", turnId));
        String publicId = getConversation.queryOne(c, params().bigint("id", conversationId).bigint("tenant_id", tenantId),
                rs -> rs.getString("public_id"));
        return new Started(conversationId, publicId, turnId, turn.seq());
    }

    private int runningSeq(Connection c, long turnId) throws SQLException {
        Turn t = getTurn.queryOne(c, Params.of().bigint("id", turnId), Conversations::turn);
        return t == null ? 0 : t.seq();
    }

    private static String validMessage(String message) {
        if (message == null || message.isBlank() || message.length() > MAX_MESSAGE) {
            throw new InvalidField("message", "must be 1-" + MAX_MESSAGE + " characters");
        }
        return message.strip();
    }

    /**
     * The conversation a tenant names by its public id; empty when the tenant has none by that id
     * (another tenant's is not this tenant's either).
     */
    public Optional<Long> byPublicId(long tenantId, String publicId) {
        if (!dev.converge.provisioning.validation.PublicId.CONVERSATION.matches(publicId)) {
            return Optional.empty();
        }
        return store.withConnection(c -> Optional.ofNullable(byPublicId.queryOne(c, Params.of().text("public_id", publicId)
                .bigint("tenant_id", tenantId), rs -> rs.getLong(1))));
    }

    /** The conversation's turns and transcript, or empty when the tenant has no such conversation. */
    public Optional<Transcript> transcript(long tenantId, long conversationId) {
        return store.withConnection(c -> {
            Transcript.Header h = getConversation.queryOne(c, params().bigint("id", conversationId)
                    .bigint("tenant_id", tenantId), rs -> new Transcript.Header(rs.getLong("id"),
                    rs.getString("public_id"), Sql.instant(rs, "created_at"), Sql.instant(rs, "updated_at")));
            if (h == null) {
                return Optional.empty();
            }
            return Optional.of(new Transcript(h, turns.query(c, Params.of().bigint("id", conversationId), Conversations::turn),
                    entries.query(c, Params.of().bigint("id", conversationId), Conversations::entry)));
        });
    }

    // ---- what a turn's job uses (the assistant's turn runner, dev.converge.provisioning.assistant)

    public Optional<Turn> turn(long turnId) {
        return store.withConnection(c -> Optional.ofNullable(getTurn.queryOne(c, Params.of().bigint("id", turnId),
                Conversations::turn)));
    }

    public List<Entry> entries(long conversationId) {
        return store.withConnection(c -> entries.query(c, Params.of().bigint("id", conversationId), Conversations::entry));
    }

    /** Counts one model call; false when the turn no longer runs. */
    public boolean step(long turnId) {
        return store.withConnection(c -> step.update(c, Params.of().bigint("id", turnId)) == 1);
    }

    public void assistant(long conversationId, long turnId, String text, String toolCallsJson) {
        store.withConnection(c -> insertEntry.update(c, params().bigint("conversation_id", conversationId)
                .bigint("turn_id", turnId).text("kind", "assistant").text("content", text).text("tool_calls", toolCallsJson)));
    }

    /** Records a tool call before it runs; false if this turn recorded that call before, or no longer runs. */
    public boolean startTool(long turnId, String callId, String toolName, String arguments) {
        return store.withConnection(c -> startTool.update(c, params().bigint("turn_id", turnId).text("call_id", callId)
                .text("tool_name", toolName).text("arguments", arguments)) == 1);
    }

    public void finishTool(long turnId, String callId, boolean error, String fedBack, String resultJson) {
        store.withConnection(c -> finishTool.update(c, params().bigint("turn_id", turnId).text("call_id", callId)
                .bool("is_error", error).text("content", fedBack).text("result", resultJson)));
    }

    /** Ends a running turn (answered, budget spent, failed); false if it had ended already. */
    public boolean end(long turnId, String state, String error) {
        return store.inTransaction(c -> {
            if (endTurn.update(c, params().bigint("id", turnId).text("state", state).text("error", error)) == 0) {
                return false;
            }
            Turn t = getTurn.queryOne(c, Params.of().bigint("id", turnId), Conversations::turn);
            release.update(c, params().bigint("id", t.conversationId()).bigint("turn_id", turnId));
            return true;
        });
    }

    private Params params() {
        return Params.of().now(store.clock().sqlNow());
    }

    private static Turn turn(ResultSet rs) throws SQLException {
        return new Turn(rs.getLong("id"), rs.getLong("conversation_id"), rs.getLong("tenant_id"), rs.getInt("seq"),
                rs.getString("state"), rs.getInt("steps"), rs.getString("error"), Sql.instant(rs, "created_at"),
                Sql.instant(rs, "ended_at"));
    }

    private static Entry entry(ResultSet rs) throws SQLException {
        boolean err = rs.getBoolean("is_error");
        Boolean error = rs.wasNull() ? null : err;
        return new Entry(rs.getLong("id"), rs.getLong("turn_id"), rs.getString("kind"), rs.getString("content"),
                rs.getString("tool_calls"), rs.getString("call_id"), rs.getString("tool_name"), rs.getString("arguments"),
                rs.getString("state"), error, rs.getString("result"), Sql.instant(rs, "created_at"),
                Sql.instant(rs, "ended_at"));
    }
}
