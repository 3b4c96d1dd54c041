package dev.converge.queue.internal;

import static dev.converge.store.internal.Templates.sql;

import dev.converge.store.internal.Dialects;
import dev.converge.queue.NodeInfo;
import dev.converge.store.Store;
import dev.converge.store.internal.Dialect;
import dev.converge.store.Params;
import dev.converge.store.Sql;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet's table ({@code cv_node}): this node's row, written at start and every heartbeat
 * interval and deleted at a clean stop, and everyone's rows for reading. Queue and job type names
 * cannot contain {@code ,} or {@code =}, so they are stored as plain lists.
 */
public final class Fleet implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Fleet.class);
    /** Rows of nodes not seen for this long are deleted by the leader (a killed node's row stays visible until then). */
    public static final Duration FORGET_AFTER = Duration.ofHours(1);

    private final Store store;
    private final String nodeId;
    private final String version;
    private final String queues;
    private final String jobTypes;
    private final Duration every;
    private final long liveMs;
    private final Sql register;
    private final Sql touch;
    private final Sql leave;
    private final Sql list;
    private final Sql forget;
    private final ScheduledExecutorService timer;
    private final Runnable registered;
    private volatile boolean down;
    /** The queues live nodes work, as this node last read the fleet table; null before the first read. */
    private volatile Set<String> liveQueues;

    /**
     * @param queues   the queues this node works, with their concurrency, in order
     * @param jobTypes the job types it handles
     * @param every    how often the node writes its row (the heartbeat interval)
     * @param live     how recent a row must be for its node to count as live
     * @param registered called after the row was written afresh (at start, or after it had gone)
     */
    public Fleet(Store store, String nodeId, String version, Map<String, Integer> queues, String[] jobTypes,
            Duration every, Duration live, Runnable registered) {
        this.registered = registered;
        this.store = store;
        this.nodeId = nodeId;
        this.version = version;
        StringBuilder q = new StringBuilder();
        queues.forEach((name, n) -> q.append(q.length() == 0 ? "" : ",").append(name).append('=').append(n));
        this.queues = q.toString();
        this.jobTypes = String.join(",", jobTypes);
        this.every = every;
        this.liveMs = live.toMillis();
        Dialect d = Dialects.forUrl(store.config().url(), store.config().schema());
        this.register = sql(d, "INSERT INTO cv_node (node_id, version, queues, job_types, started_at, last_seen) "
                + "VALUES (:id, :version, :queues, :types, {now}, {now})" + d.onConflictDoNothing());
        this.touch = sql(d, "UPDATE cv_node SET version = :version, queues = :queues, job_types = :types, "
                + "last_seen = {now} WHERE node_id = :id");
        this.leave = sql(d, "DELETE FROM cv_node WHERE node_id = :id");
        this.list = sql(d, "SELECT node_id, version, queues, job_types, started_at, last_seen, "
                + "CASE WHEN last_seen >= {now+:minus_live_ms} THEN 1 ELSE 0 END AS live FROM cv_node ORDER BY node_id");
        this.forget = sql(d, "DELETE FROM cv_node WHERE last_seen < {now+:minus_forget_ms}");
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> Shared.daemon(r, "converge-fleet"));
    }

    /** Writes this node's row afresh (a restart under the same id starts anew), then keeps it current. */
    public Fleet start() {
        try {
            store.inTransaction(c -> {
                leave.update(c, Params.of().text("id", nodeId));
                return register.update(c, row());
            });
            registered.run();
            readLiveQueues();
        } catch (RuntimeException e) {
            log.warn("could not record node {} in the fleet table ({}); trying again every {}", nodeId, e.getMessage(),
                    every);
            down = true;
        }
        timer.scheduleWithFixedDelay(this::beat, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    private Params row() {
        return Params.of().now(store.clock().sqlNow()).text("id", nodeId).text("version", version)
                .text("queues", queues).text("types", jobTypes);
    }

    void beat() {
        try {
            if (store.withConnection(c -> touch.update(c, row()) == 0 && register.update(c, row()) == 1)) {
                registered.run();
            }
            readLiveQueues();
            if (down) {
                log.info("node {} is recorded in the fleet table again", nodeId);
                down = false;
            }
        } catch (RuntimeException e) {
            if (!down) {
                log.warn("could not refresh node {} in the fleet table: {}", nodeId, e.getMessage());
                down = true;
            }
        }
    }

    private void readLiveQueues() {
        Set<String> live = new LinkedHashSet<>();
        for (NodeInfo n : nodes()) {
            if (n.live()) {
                live.addAll(n.queues().keySet());
            }
        }
        liveQueues = Set.copyOf(live);
    }

    /** The queues the live nodes work, as of this node's last heartbeat; null until it first read them. */
    public Set<String> liveQueues() {
        return liveQueues;
    }

    /** Every node with a row, live or not, by id. */
    public List<NodeInfo> nodes() {
        return store.withConnection(c -> list.query(c, Params.of().now(store.clock().sqlNow())
                .bigint("minus_live_ms", -liveMs), rs -> new NodeInfo(rs.getString(1), rs.getString(2),
                        queues(rs.getString(3)), types(rs.getString(4)), Sql.instant(rs, 5), Sql.instant(rs, 6),
                        rs.getInt(7) == 1)));
    }

    /** The leader's round: deletes the rows of nodes not seen for {@link #FORGET_AFTER}; returns how many. */
    public int forgetGone() {
        int n = store.withConnection(c -> forget.update(c, Params.of().now(store.clock().sqlNow())
                .bigint("minus_forget_ms", -FORGET_AFTER.toMillis())));
        if (n > 0) {
            log.info("forgot {} node(s) not seen for {}", n, FORGET_AFTER);
        }
        return n;
    }

    private static Map<String, Integer> queues(String s) {
        Map<String, Integer> out = new LinkedHashMap<>();
        if (s != null && !s.isEmpty()) {
            for (String part : s.split(",")) {
                int eq = part.indexOf('=');
                out.put(part.substring(0, eq), Integer.parseInt(part.substring(eq + 1)));
            }
        }
        return out;
    }

    private static Set<String> types(String s) {
        return s == null || s.isEmpty() ? Set.of() : new LinkedHashSet<>(Arrays.asList(s.split(",")));
    }

    /** Stops refreshing and deletes this node's row: a node that stopped cleanly is not listed. */
    @Override
    public void close() {
        timer.shutdownNow();
        try {
            store.withConnection(c -> leave.update(c, Params.of().text("id", nodeId)));
        } catch (RuntimeException e) {
            log.debug("could not delete node {} from the fleet table: {}", nodeId, e.getMessage());
        }
    }
}
