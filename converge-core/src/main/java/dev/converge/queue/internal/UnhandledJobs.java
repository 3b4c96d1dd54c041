package dev.converge.queue.internal;

import static dev.converge.store.internal.Templates.sql;

import dev.converge.store.internal.Dialects;
import dev.converge.queue.NodeInfo;
import dev.converge.queue.RetryPolicy;
import dev.converge.store.internal.Dialect;
import dev.converge.store.Params;
import dev.converge.store.Sql;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Jobs in this node's queues of types that no live node working that queue handles (by the
 * fleet table; this node included). A node leases only the types it handles, so such a job waits
 * for a node that has its handler (a newer version, mid-deploy). This makes the wait visible: a
 * WARN once per type on this node, and a count by type for the gauge. A job that has waited the
 * unhandled-job grace (counted from when it was due) is then leased on purpose and failed through
 * the usual finish path, so its batch, chain or flow hears of it: a type that no node handles,
 * ever, does not wait forever. A type that a live node of the fleet handles is never failed here,
 * however long its jobs wait: they wait for that node.
 */
public final class UnhandledJobs implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(UnhandledJobs.class);
    private static final int FAIL_PER_ROUND = 100;

    private final EngineRuntime rt;
    private final List<String> queues;
    private final Fleet fleet;
    private final Dialect dialect;
    private final Map<Integer, Sql> countsByKindCount = new ConcurrentHashMap<>();
    private final Sql overdue;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();
    private volatile Map<String, Long> waiting = Map.of();
    private final ScheduledExecutorService timer;

    public UnhandledJobs(EngineRuntime rt, List<String> queues, Fleet fleet) {
        this.rt = rt;
        this.queues = List.copyOf(queues);
        this.fleet = fleet;
        this.dialect = Dialects.forUrl(rt.store().config().url(), rt.store().config().schema());
        this.overdue = sql(dialect, "SELECT id FROM cv_job WHERE state = 'available' AND queue = :queue "
                // the grace counts from when the job was enqueued too: a continuation is due since its work
                // began (NewJob.dueSince), which may be longer ago than the grace
                + "AND kind = :kind AND run_at <= {now+:minus_grace_ms} AND created_at <= {now+:minus_grace_ms} "
                + "ORDER BY run_at, id LIMIT " + FAIL_PER_ROUND);
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> Shared.daemon(r, "converge-unhandled"));
    }

    /** Looks every six rescue intervals (30 s by default): a scan of the due jobs, so not more often. */
    public UnhandledJobs start() {
        long every = rt.settings().rescue().toMillis() * 6;
        long first = ThreadLocalRandom.current().nextLong(every / 2 + 1) + every / 2;
        timer.scheduleWithFixedDelay(this::safeRound, first, every, TimeUnit.MILLISECONDS);
        return this;
    }

    /** Jobs waiting for a handler no live node has, by type, as of the last round. */
    public Map<String, Long> waiting() {
        return waiting;
    }

    private void safeRound() {
        try {
            round();
        } catch (RuntimeException e) {
            log.warn("looking for jobs of types this node does not handle failed: {}", e.getMessage());
        }
    }

    /** One round over this node's queues; returns how many jobs it failed after the grace. */
    public int round() {
        List<NodeInfo> live = fleet.nodes().stream().filter(NodeInfo::live).toList();
        Map<String, Long> byKind = new TreeMap<>();
        int failed = 0;
        for (String queue : queues) {
            Set<String> anyone = new TreeSet<>(Arrays.asList(rt.registry().handledKinds()));
            for (NodeInfo n : live) {
                if (n.queues().containsKey(queue)) {
                    anyone.addAll(n.jobTypes());
                }
            }
            String[] handled = anyone.toArray(String[]::new);
            Sql counts = countsByKindCount.computeIfAbsent(handled.length, this::countsStatement);
            Params p = Params.of().now(rt.store().clock().sqlNow()).text("queue", queue).texts("k", handled);
            List<Object[]> rows = rt.store().withConnection(c -> counts.query(c, p,
                    rs -> new Object[] {rs.getString(1), rs.getLong(2)}));
            for (Object[] row : rows) {
                String kind = (String) row[0];
                long n = (Long) row[1];
                byKind.merge(kind, n, Long::sum);
                if (warned.add(queue + "\u0000" + kind)) {
                    log.warn("queue {} holds {} job(s) of type '{}', which no live node working that queue has a "
                            + "handler for (this one is {}): they wait for a node that has one (a newer version, "
                            + "mid-deploy?), and fail if none takes them within {}", queue, n, kind, rt.nodeId(),
                            rt.settings().unhandledGrace());
                }
                failed += failOverdue(queue, kind);
            }
        }
        waiting = Map.copyOf(byKind);
        return failed;
    }

    private Sql countsStatement(int kindCount) {
        String notIn = kindCount > 0 ? "AND kind NOT IN (" + Params.names("k", kindCount) + ") " : "";
        return sql(dialect, "SELECT kind, COUNT(*) AS n FROM cv_job WHERE state = 'available' AND queue = :queue "
                + "AND run_at <= {now} " + notIn + "GROUP BY kind");
    }

    /** Leases the jobs of {@code kind} past the grace and fails them, with their hooks, in one transaction. */
    private int failOverdue(String queue, String kind) {
        Duration grace = rt.settings().unhandledGrace();
        String error = "no handler for job type '" + kind + "' on any live node working queue " + queue
                + " for the unhandled-job grace (" + grace + "); failed by node " + rt.nodeId();
        List<String> wake = new ArrayList<>();
        int n = rt.store().inTransaction(c -> {
            FinishContext tx = new FinishContext(c, rt.jobs(), dialect, rt.store().clock().sqlNow());
            List<Long> ids = overdue.query(c, Params.of().now(tx.now()).text("queue", queue).text("kind", kind)
                    .bigint("minus_grace_ms", -grace.toMillis()), rs -> rs.getLong(1));
            List<LeasedJob> leased = rt.jobs().leaseIds(c, ids, rt.nodeId(), rt.settings().lease().toMillis(), tx.now());
            List<Completion> items = new ArrayList<>(leased.size());
            for (LeasedJob job : leased) {
                items.add(new Completion(job, new Outcome.Failed(error, false), RetryPolicy.never()));
            }
            boolean[] applied = rt.finisher().apply(tx, items);
            wake.addAll(tx.queuesToWake());
            int done = 0;
            for (boolean a : applied) {
                done += a ? 1 : 0;
            }
            return done;
        });
        if (n > 0) {
            rt.counters().failed.add(n);
            log.warn("queue {}: failed {} job(s) of type '{}': no node took them within {}", queue, n, kind, grace);
        }
        wake.forEach(rt.wakeup()::signal);
        return n;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
