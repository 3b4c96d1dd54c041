package dev.converge.claim.internal;

import static dev.converge.store.internal.Templates.sql;

import dev.converge.store.internal.Dialects;
import dev.converge.claim.LeaderRound;
import dev.converge.store.Store;
import dev.converge.store.internal.Dialect;
import dev.converge.store.Params;
import dev.converge.store.internal.SchemaProbe;
import dev.converge.store.Sql;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records what the leader tasks' rounds did in {@code cv_leader_round}, one row per task: every
 * round that changed something or failed, otherwise at most every 30 s (a task that ticks each
 * second writes twice a minute). Nothing is written while the schema is the previous release's.
 * A write that fails is logged at debug and forgotten: the record never stops a round.
 */
public final class LeaderRounds {
    private static final Logger log = LoggerFactory.getLogger(LeaderRounds.class);
    private static final long QUIET_EVERY_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final Store store;
    private final String nodeId;
    private final SchemaProbe table;
    private final Map<String, Long> lastWritten = new ConcurrentHashMap<>();
    private final Sql touch;
    private final Sql changed;
    private final Sql insert;
    private final Sql insertChanged;
    private final Sql list;

    public LeaderRounds(Store store, String nodeId) {
        this.store = store;
        this.nodeId = nodeId;
        Dialect d = Dialects.forUrl(store.config().url(), store.config().schema());
        this.table = SchemaProbe.table(d, "cv_leader_round");
        this.touch = sql(d, "UPDATE cv_leader_round SET node_id = :node, round_at = {now}, outcome = :outcome, "
                + "detail = :detail WHERE task = :task");
        this.changed = sql(d, "UPDATE cv_leader_round SET node_id = :node, round_at = {now}, outcome = :outcome, "
                + "detail = :detail, changed_at = {now}, changed_detail = :detail WHERE task = :task");
        this.insert = sql(d, "INSERT INTO cv_leader_round (task, node_id, round_at, outcome, detail) "
                + "VALUES (:task, :node, {now}, :outcome, :detail)" + d.onConflictDoNothing());
        this.insertChanged = sql(d, "INSERT INTO cv_leader_round (task, node_id, round_at, outcome, detail, changed_at, "
                + "changed_detail) VALUES (:task, :node, {now}, :outcome, :detail, {now}, :detail)"
                + d.onConflictDoNothing());
        this.list = sql(d, "SELECT task, node_id, round_at, outcome, detail, changed_at, changed_detail "
                + "FROM cv_leader_round ORDER BY task");
    }

    /** A round of {@code task} ended: {@code detail} says what it changed (null: nothing), or why it failed. */
    public void record(String task, boolean ok, String detail) {
        long now = System.nanoTime();
        Long last = lastWritten.get(task);
        if (ok && detail == null && last != null && now - last < QUIET_EVERY_NANOS) {
            return;
        }
        try {
            store.withConnection(c -> {
                if (!table.present(c)) {
                    return null;
                }
                boolean change = ok && detail != null;
                Params p = Params.of().now(store.clock().sqlNow()).text("task", task).text("node", nodeId)
                        .text("outcome", ok ? "ok" : "failed").text("detail", detail);
                if ((change ? changed : touch).update(c, p) == 0) {
                    (change ? insertChanged : insert).update(c, p);
                }
                return null;
            });
            lastWritten.put(task, now);
        } catch (RuntimeException e) {
            log.debug("could not record the {} round: {}", task, e.getMessage());
        }
    }

    /** Every task's last recorded round; empty on the previous release's schema. */
    public List<LeaderRound> list() {
        return store.withConnection(c -> !table.present(c) ? List.of() : list.query(c, Params.of().now(
                store.clock().sqlNow()), rs -> new LeaderRound(rs.getString(1), rs.getString(2), Sql.instant(rs, 3),
                        rs.getString(4), rs.getString(5), Sql.instant(rs, 6), rs.getString(7))));
    }
}
