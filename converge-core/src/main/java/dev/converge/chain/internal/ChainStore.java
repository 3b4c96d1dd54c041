package dev.converge.chain.internal;

import static dev.converge.store.internal.Templates.sql;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.converge.ConvergeException;
import dev.converge.batch.internal.JobSpec;
import dev.converge.chain.ChainProgress;
import dev.converge.chain.ChainState;
import dev.converge.store.internal.Dialect;
import dev.converge.store.Params;
import dev.converge.store.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/** The SQL of {@code cv_chain}: position moves by a conditional update, so each link starts once. */
public final class ChainStore {
    private static final ObjectMapper JSON = dev.converge.queue.internal.JsonCodec.shared();
    /** Made once: resolving the type on every read was a visible share of the completion thread's CPU. */
    private static final ObjectReader LINK = JSON.readerFor(LinkSpec.class);

    /**
     * A chain row with its stored links and callbacks, read from their JSON when asked: a link's completion reads
     * the row to start the next link (one of them) or to end the chain (none), and decoding every link and both
     * callbacks on each read was a sixth of the completion thread's samples in a flow benchmark's profile.
     */
    public record ChainRow(ChainProgress progress, String linksJson, String catchJson, String finallyJson) {
        /** The link at {@code pos}, decoded alone (the links before it are skipped, not decoded). */
        public LinkSpec link(int pos) {
            try (JsonParser p = JSON.createParser(linksJson)) {
                if (p.nextToken() != JsonToken.START_ARRAY) {
                    throw new ConvergeException("stored chain links are not a list");
                }
                for (int i = 0; ; i++) {
                    JsonToken t = p.nextToken();
                    if (t == null || t == JsonToken.END_ARRAY) {
                        throw new ConvergeException("stored chain has " + i + " links, none at " + pos);
                    }
                    if (i == pos) {
                        return LINK.readValue(p);
                    }
                    p.skipChildren();
                }
            } catch (java.io.IOException e) {
                throw new ConvergeException("stored chain links are unreadable", e);
            }
        }

        public JobSpec catchJob() {
            return JobSpec.fromJson(catchJson);
        }

        public JobSpec finallyJob() {
            return JobSpec.fromJson(finallyJson);
        }
    }

    private final Sql insert;
    private final Sql get;
    private final Sql advance;
    private final Sql end;
    private final Sql fireCatch;
    private final Sql fireFinally;

    public ChainStore(Dialect d) {
        insert = sql(d, "INSERT INTO cv_chain (name, state, position, size, links, catch_job, finally_job, flow_id, "
                + "created_at) VALUES (:name, 'running', 0, :size, :links, :catch_job, :finally_job, :flow_id, {now})");
        get = sql(d, "SELECT id, name, state, position, size, links, catch_job, finally_job, flow_id, created_at, "
                + "finished_at FROM cv_chain WHERE id = :id");
        advance = sql(d, "UPDATE cv_chain SET position = position + 1 WHERE id = :id AND position = :pos "
                + "AND state = 'running'");
        end = sql(d, "UPDATE cv_chain SET state = :state, finished_at = {now} WHERE id = :id AND state = 'running'");
        fireCatch = sql(d, "UPDATE cv_chain SET catch_fired = TRUE WHERE id = :id AND catch_fired = FALSE");
        fireFinally = sql(d, "UPDATE cv_chain SET finally_fired = TRUE WHERE id = :id AND finally_fired = FALSE");
    }

    public long insert(Connection c, String name, List<LinkSpec> links, JobSpec catchJob, JobSpec finallyJob,
            Long flowId, Instant now) throws SQLException {
        String linksJson;
        try {
            linksJson = JSON.writeValueAsString(links);
        } catch (JsonProcessingException e) {
            throw new ConvergeException("cannot store chain links", e);
        }
        Params p = Params.of().now(now).text("name", name).integer("size", links.size()).text("links", linksJson)
                .text("catch_job", catchJob == null ? null : catchJob.toJson())
                .text("finally_job", finallyJob == null ? null : finallyJob.toJson()).bigint("flow_id", flowId);
        try (PreparedStatement ps = insert.prepareReturning(c, p, "id")) {
            ps.executeUpdate();
            try (ResultSet rs = ps.getGeneratedKeys()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    public ChainRow get(Connection c, long id) throws SQLException {
        return get.queryOne(c, Params.of().bigint("id", id), ChainStore::row);
    }

    /** Moves past the link at {@code pos}; false if it already moved (a duplicate) or the chain ended. */
    public boolean advance(Connection c, long id, int pos) throws SQLException {
        return advance.update(c, Params.of().bigint("id", id).integer("pos", pos)) == 1;
    }

    /** Ends a running chain in the given state; false if it had already ended. */
    public boolean end(Connection c, long id, ChainState state, Instant now) throws SQLException {
        return end.update(c, Params.of().now(now).bigint("id", id).text("state", state.sql())) == 1;
    }

    public boolean fireCatch(Connection c, long id) throws SQLException {
        return fireCatch.update(c, Params.of().bigint("id", id)) == 1;
    }

    public boolean fireFinally(Connection c, long id) throws SQLException {
        return fireFinally.update(c, Params.of().bigint("id", id)) == 1;
    }

    private static ChainRow row(ResultSet rs) throws SQLException {
        ChainProgress p = new ChainProgress(rs.getLong("id"), rs.getString("name"), ChainState.fromSql(rs.getString("state")),
                rs.getInt("position"), rs.getInt("size"), Sql.nullableLong(rs, "flow_id"), Sql.instant(rs, "created_at"),
                Sql.instant(rs, "finished_at"));
        return new ChainRow(p, rs.getString("links"), rs.getString("catch_job"), rs.getString("finally_job"));
    }
}
