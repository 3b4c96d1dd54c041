package dev.converge.dashboard;

import dev.converge.store.Sql;
import dev.converge.store.Store;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The dashboard's reads, bounded and on indexed columns: lists are capped at {@link #PAGE} rows and
 * page by id; the counts of the overview are grouped once per refresh ({@link OverviewCache}), never
 * per viewer. Never read here: job payloads, flow contexts, compensation payloads and a ledger
 * entry's data (a leaf's reply may carry a credential) — the dashboard shows state, not secrets.
 */
final class Queries {
    /** The most rows a list answers with. */
    static final int PAGE = 50;
    /** The throughput chart: this many buckets of {@link #BUCKET} back from now. */
    static final int BUCKETS = 12;
    static final Duration BUCKET = Duration.ofMinutes(5);

    private final Store store;
    private final Duration longClaimed;

    /** @param longClaimed how long an entry may stay claimed before the dashboard highlights it */
    Queries(Store store, Duration longClaimed) {
        this.store = store;
        this.longClaimed = longClaimed;
    }

    Duration longClaimed() {
        return longClaimed;
    }

    /**
     * queue -> state -> count of the jobs waiting ({@code available}), running, failed for good and
     * cancelled, each read through a partial index, never by scanning the succeeded rows retention
     * keeps (those are counted per hour by {@link #throughput}).
     */
    Map<String, Map<String, Long>> jobsByQueue(Connection c) throws SQLException {
        Map<String, Map<String, Long>> out = new TreeMap<>();
        count(c, out, "available", "SELECT queue, COUNT(*) AS n FROM cv_job WHERE state = 'available' GROUP BY queue");
        // a running job holds a lease, and only a running one does: the lease index finds them
        count(c, out, "running", "SELECT queue, COUNT(*) AS n FROM cv_job WHERE lease_expires_at IS NOT NULL"
                + " AND state = 'running' GROUP BY queue");
        count(c, out, "failed", "SELECT queue, COUNT(*) AS n FROM cv_job WHERE state = 'failed' GROUP BY queue");
        count(c, out, "cancelled", "SELECT queue, COUNT(*) AS n FROM cv_job WHERE state = 'cancelled' GROUP BY queue");
        return out;
    }

    private void count(Connection c, Map<String, Map<String, Long>> out, String state, String sql)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(store.expand(sql)); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.computeIfAbsent(rs.getString("queue"), q -> new TreeMap<>()).put(state, rs.getLong("n"));
            }
        }
    }

    /**
     * queue -> finished jobs per {@link #BUCKET} over the last hour, oldest first: [succeeded, failed] per bucket.
     * Reads only finished rows of the last hour (the retention index on finished_at).
     */
    Map<String, long[][]> throughput(Connection c, Instant now) throws SQLException {
        long bucketSeconds = BUCKET.toSeconds();
        long lastBucket = now.getEpochSecond() / bucketSeconds;
        long firstBucket = lastBucket - BUCKETS + 1;
        Map<String, long[][]> out = new TreeMap<>();
        String sql = "SELECT queue, state, FLOOR(EXTRACT(EPOCH FROM finished_at) / " + bucketSeconds + ") AS bucket,"
                + " COUNT(*) AS n FROM cv_job WHERE finished_at >= ? AND state IN ('succeeded', 'failed')"
                + " GROUP BY queue, state, FLOOR(EXTRACT(EPOCH FROM finished_at) / " + bucketSeconds + ")";
        try (PreparedStatement ps = c.prepareStatement(store.expand(sql))) {
            ps.setObject(1, at(Instant.ofEpochSecond(firstBucket * bucketSeconds)));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int i = (int) (rs.getLong("bucket") - firstBucket);
                    if (i < 0 || i >= BUCKETS) {
                        continue;
                    }
                    long[][] series = out.computeIfAbsent(rs.getString("queue"), q -> new long[BUCKETS][2]);
                    series[i]["failed".equals(rs.getString("state")) ? 1 : 0] += rs.getLong("n");
                }
            }
        }
        return out;
    }

    /** state -> count for a table with a state column (cv_flow). */
    Map<String, Long> byState(Connection c, String table) throws SQLException {
        Map<String, Long> out = new TreeMap<>();
        try (PreparedStatement ps = c.prepareStatement(
                store.expand("SELECT state, COUNT(*) AS n FROM " + table + " GROUP BY state"));
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.put(rs.getString("state"), rs.getLong("n"));
            }
        }
        return out;
    }

    /** resource kind -> state -> count. */
    Map<String, Map<String, Long>> ledgerByKind(Connection c) throws SQLException {
        Map<String, Map<String, Long>> out = new TreeMap<>();
        try (PreparedStatement ps = c.prepareStatement(
                store.expand("SELECT kind, state, COUNT(*) AS n FROM cv_ledger GROUP BY kind, state"));
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.computeIfAbsent(rs.getString("kind"), k -> new TreeMap<>()).put(rs.getString("state"), rs.getLong("n"));
            }
        }
        return out;
    }

    /** Entries claimed for longer than {@link #longClaimed} (the partial index on unresolved entries). */
    long longClaimedCount(Connection c, Instant now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(store.expand(
                "SELECT COUNT(*) FROM cv_ledger WHERE state = 'claimed' AND updated_at < ?"))) {
            ps.setObject(1, at(now.minus(longClaimed)));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** How many of the newest jobs matching the other filters a search by error text reads at once. */
    static final int SEARCH_WINDOW = 10_000;

    /**
     * What the jobs page filters by; each part may be null. {@code finishedFrom} (inclusive) and
     * {@code finishedTo} (exclusive) select finished jobs by when they finished, newest first: the
     * retention index on {@code finished_at} reads a time range without touching the rest. Paging
     * is by {@code before} (an id) and, with a time range, by the last row's finish time in
     * {@code finishedTo} as well.
     */
    record JobFilter(String queue, String state, String kind, String error, Long flowId, Instant finishedFrom,
            Instant finishedTo, Long before) {
        static JobFilter of(String queue, String state, String kind, String error, Long before) {
            return new JobFilter(queue, state, kind, error, null, null, null, before);
        }

        boolean timed() {
            return finishedFrom != null || finishedTo != null;
        }
    }

    /**
     * A page of jobs; {@code searchedTo} is, for a search by error text, the last id it read (null
     * if it read them all), with its finish time for a search in a time range; {@code count} how
     * many jobs match, counted up to {@link #COUNT_CAP} + 1
     * (null for a search by error text, which reads a window).
     */
    record JobPage(List<Map<String, Object>> items, Long searchedTo, Instant searchedToFinished, Long count) {
    }

    /**
     * The newest jobs matching the filter, ids below {@code before} when given. {@code error} is a
     * piece of the opening of their last error, any case, looked for among the newest
     * {@link #SEARCH_WINDOW} jobs matching the other filters (an error's text is read from the table
     * row by row: a bounded window keeps a search that finds nothing from reading a day of
     * failures); {@link JobPage#searchedTo} says where to go on.
     */
    JobPage jobs(JobFilter f) {
        String columns = "id, queue, kind, state, attempt, max_attempts, epoch, lease_owner, lease_expires_at, run_at,"
                + " flow_id, batch_id, chain_id, created_at, started_at, finished_at, last_error";
        StringBuilder where = new StringBuilder(" FROM cv_job WHERE 1 = 1");
        List<Object> args = new ArrayList<>();
        filter(where, args, "queue", f.queue());
        filter(where, args, "state", f.state());
        filter(where, args, "kind", f.kind());
        if (f.flowId() != null) {
            where.append(" AND flow_id = ?");
            args.add(f.flowId());
        }
        if (f.timed()) {
            where.append(" AND state IN ('succeeded', 'failed', 'cancelled')");
            if (f.finishedFrom() != null) {
                where.append(" AND finished_at >= ?");
                args.add(at(f.finishedFrom()));
            }
        }
        // what is counted: the filters without the page's bound
        String counted = where.toString() + (f.timed() && f.finishedTo() != null ? " AND finished_at < ?" : "");
        List<Object> countArgs = new ArrayList<>(args);
        if (f.timed() && f.finishedTo() != null) {
            countArgs.add(at(f.finishedTo()));
        }
        String order;
        if (f.timed()) {
            if (f.finishedTo() != null && f.before() != null) {
                // the next page of a time range: finished before the last row shown, or with it and an older id
                where.append(" AND finished_at <= ? AND (finished_at < ? OR id < ?)");
                args.addAll(List.of(at(f.finishedTo()), at(f.finishedTo()), f.before()));
            } else {
                if (f.finishedTo() != null) {
                    where.append(" AND finished_at < ?");
                    args.add(at(f.finishedTo()));
                }
                if (f.before() != null) {
                    where.append(" AND id < ?");
                    args.add(f.before());
                }
            }
            order = " ORDER BY finished_at DESC, id DESC";
        } else {
            if (f.before() != null) {
                where.append(" AND id < ?");
                args.add(f.before());
            }
            order = " ORDER BY id DESC";
        }
        if (f.error() == null || f.error().isBlank()) {
            boolean firstPage = f.before() == null;
            return store.withConnection(c -> {
                List<Map<String, Object>> items = rows(c, "SELECT " + columns + where + order + " LIMIT " + PAGE, args);
                // a first page that is not full is every match: counting would read the same rows again
                long count = firstPage && items.size() < PAGE ? items.size() : capped(c, counted, countArgs);
                return new JobPage(items, null, null, count);
            });
        }
        String window = "SELECT " + columns + where + order + " LIMIT " + SEARCH_WINDOW;
        StringBuilder found = new StringBuilder("SELECT * FROM (" + window + ") w WHERE 1 = 1");
        List<Object> foundArgs = new ArrayList<>(args);
        contains(found, foundArgs, "last_error", f.error());
        found.append(order).append(" LIMIT ").append(PAGE);
        return store.withConnection(c -> {
            List<Map<String, Object>> items = rows(c, found.toString(), foundArgs);
            // the window's last row, where a search goes on from
            List<Map<String, Object>> edge = rows(c, "SELECT id, finished_at, (SELECT COUNT(*) FROM (SELECT id" + where
                    + order + " LIMIT " + SEARCH_WINDOW + ") n) AS n FROM (SELECT id, finished_at" + where + order + " LIMIT "
                    + SEARCH_WINDOW + ") w ORDER BY " + (f.timed() ? "finished_at, id" : "id") + " LIMIT 1",
                    duplicate(args));
            boolean full = !edge.isEmpty() && ((Number) edge.get(0).get("n")).longValue() == SEARCH_WINDOW;
            // a full page ends the window where the page ends; a full window without one, where the window ends
            if (items.size() == PAGE || !full) {
                return new JobPage(items, null, null, null);
            }
            Object finished = edge.get(0).get("finished_at");
            return new JobPage(items, ((Number) edge.get(0).get("id")).longValue(),
                    f.timed() && finished != null ? Instant.parse((String) finished) : null, null);
        });
    }

    private static List<Object> duplicate(List<Object> args) {
        List<Object> twice = new ArrayList<>(args);
        twice.addAll(args);
        return twice;
    }

    /** How many rows a FROM … WHERE selects, counted up to {@link #COUNT_CAP} + 1: "more than" past the cap. */
    private long capped(Connection c, String fromWhere, List<Object> args) throws SQLException {
        return ((Number) rows(c, "SELECT COUNT(*) AS n FROM (SELECT 1 AS one" + fromWhere + " LIMIT " + (COUNT_CAP + 1)
                + ") s", args).get(0).get("n")).longValue();
    }

    /** How much of a text a "contains" search reads: an error's message and first frames, not its whole trace. */
    static final int SEARCHED_CHARS = 500;

    /**
     * A case-blind "contains" on the first {@link #SEARCHED_CHARS} characters of a text column; the
     * piece's own % and _ match themselves. Reading whole stack traces of every failed job would
     * cost seconds on a day of failures; the message is what people search for.
     */
    private static void contains(StringBuilder sql, List<Object> args, String column, String piece) {
        if (piece != null && !piece.isBlank()) {
            sql.append(" AND ").append(column).append(" IS NOT NULL AND LOWER(LEFT(").append(column).append(", ")
                    .append(SEARCHED_CHARS).append(")) LIKE ? ESCAPE '!'");
            args.add("%" + piece.strip().toLowerCase(java.util.Locale.ROOT).replace("!", "!!").replace("%", "!%")
                    .replace("_", "!_") + "%");
        }
    }

    /** Running jobs per node holding their lease (read through the lease index: only running jobs hold one). */
    Map<String, Long> runningByNode() {
        return store.withConnection(c -> {
            Map<String, Long> out = new LinkedHashMap<>();
            for (Map<String, Object> r : rows(c, "SELECT lease_owner AS node, COUNT(*) AS n FROM cv_job WHERE"
                    + " lease_expires_at IS NOT NULL AND state = 'running' GROUP BY lease_owner", List.of())) {
                out.put(String.valueOf(r.get("node")), ((Number) r.get("n")).longValue());
            }
            return out;
        });
    }

    /**
     * {@code needs_attention} flows first (oldest first: they have waited longest), then the newest
     * others; with {@code before}, the next page of the others (ids below it), without the first part.
     */
    List<Map<String, Object>> flows(String state, String subject, Long before) {
        String columns = "SELECT id, kind, subject, state, attention, failure_reason, deadline, created_at, updated_at,"
                + " finished_at FROM cv_flow";
        if (subject != null) {
            // one subject's flows (a site's, say): the newest first, whatever their state
            StringBuilder sql = new StringBuilder(columns + " WHERE subject = ?");
            List<Object> args = new ArrayList<>(List.of(subject));
            filter(sql, args, "state", state);
            if (before != null) {
                sql.append(" AND id < ?");
                args.add(before);
            }
            sql.append(" ORDER BY id DESC LIMIT ").append(PAGE);
            return store.withConnection(c -> rows(c, sql.toString(), args));
        }
        return store.withConnection(c -> {
            List<Map<String, Object>> out = new ArrayList<>();
            if (before == null && (state == null || state.equals("needs_attention"))) {
                out.addAll(rows(c, columns + " WHERE state = 'needs_attention' ORDER BY id LIMIT " + PAGE, List.of()));
            }
            String page = (before == null ? "" : " AND id < " + before) + " ORDER BY id DESC LIMIT " + PAGE;
            if (state == null) {
                out.addAll(rows(c, columns + " WHERE state <> 'needs_attention'" + page, List.of()));
            } else if (!state.equals("needs_attention") || before != null) {
                out.addAll(rows(c, columns + " WHERE state = ?" + page, List.of(state)));
            }
            return out;
        });
    }

    /** How many flows have this state and subject (each may be null), counted up to {@link #COUNT_CAP} + 1. */
    long flowCount(String state, String subject) {
        StringBuilder where = new StringBuilder(" FROM cv_flow WHERE 1 = 1");
        List<Object> args = new ArrayList<>();
        filter(where, args, "state", state);
        filter(where, args, "subject", subject);
        return store.withConnection(c -> capped(c, where.toString(), args));
    }

    /** A flow's jobs, batches and chains, in the order they were made. */
    Map<String, List<Map<String, Object>>> flowParts(long flowId) {
        return store.withConnection(c -> {
            Map<String, List<Map<String, Object>>> out = new LinkedHashMap<>();
            out.put("jobs", rows(c, "SELECT id, queue, kind, state, attempt, max_attempts, epoch, lease_owner, batch_id,"
                    + " chain_id, chain_pos, created_at, finished_at, last_error FROM cv_job WHERE flow_id = ? ORDER BY id LIMIT 200",
                    List.of(flowId)));
            out.put("batches", rows(c, "SELECT id, name, state, total, pending, succeeded, failed, cancelled, chain_id,"
                    + " chain_pos, created_at, cancelled_at, finished_at FROM cv_batch WHERE flow_id = ? ORDER BY id LIMIT 50",
                    List.of(flowId)));
            out.put("chains", rows(c, "SELECT id, name, state, position, size, created_at, finished_at FROM cv_chain"
                    + " WHERE flow_id = ? ORDER BY id LIMIT 50", List.of(flowId)));
            out.put("ledger", rows(c, "SELECT id, kind, natural_key, state, safety, leaf_id, generation, owner_job_id,"
                    + " owner_epoch, last_error, created_at, updated_at, confirmed_at FROM cv_ledger WHERE flow_id = ?"
                    + " ORDER BY id LIMIT 200", List.of(flowId)));
            return out;
        });
    }

    /**
     * Ledger entries: with no filter, the unresolved ones (claimed, uncertain, deleting), the longest
     * waiting first; otherwise the newest of that kind and state.
     */
    List<Map<String, Object>> ledger(String kind, String state, String subject, Long before) {
        String columns = "SELECT id, kind, natural_key, flow_id, subject, state, safety, leaf_id, generation, owner_job_id,"
                + " owner_epoch, last_error, created_at, updated_at, confirmed_at FROM cv_ledger";
        StringBuilder sql = new StringBuilder(columns);
        List<Object> args = new ArrayList<>();
        if (kind == null && state == null && subject == null && before == null) {
            sql.append(" WHERE state IN ('claimed', 'uncertain', 'deleting') ORDER BY updated_at, id LIMIT ").append(PAGE);
        } else {
            sql.append(" WHERE 1 = 1");
            filter(sql, args, "kind", kind);
            filter(sql, args, "state", state);
            filter(sql, args, "subject", subject);
            if (before != null) {
                sql.append(" AND id < ?");
                args.add(before);
            }
            sql.append(" ORDER BY id DESC LIMIT ").append(PAGE);
        }
        return store.withConnection(c -> rows(c, sql.toString(), args));
    }

    /** At most this many jobs are acted on by one bulk request; the rest by the next. */
    static final int BULK = 1000;
    /** Counting a selection stops here: a larger one reads as "more than". */
    static final int COUNT_CAP = 10_000;

    /**
     * What a bulk action selects with the jobs page's filters: for {@code retry} the failed jobs of
     * no batch, chain or flow (those are retried with what they belong to); for {@code cancel} the
     * waiting jobs but the engine's own.
     */
    private static String selection(String action, String queue, String kind, List<Object> args) {
        StringBuilder sql = new StringBuilder(" FROM cv_job WHERE ");
        if (action.equals("retry")) {
            sql.append("state = 'failed' AND flow_id IS NULL AND batch_id IS NULL AND chain_id IS NULL");
        } else {
            sql.append("state = 'available' AND kind NOT LIKE 'converge.%'");
        }
        filter(sql, args, "queue", queue);
        filter(sql, args, "kind", kind);
        return sql.toString();
    }

    /** How many jobs a bulk action would select, counted up to {@link #COUNT_CAP} + 1. */
    long selectionCount(String action, String queue, String kind) {
        List<Object> args = new ArrayList<>();
        String from = selection(action, queue, kind, args);
        return store.withConnection(c -> ((Number) rows(c, "SELECT COUNT(*) AS n FROM (SELECT 1 AS one" + from + " LIMIT "
                + (COUNT_CAP + 1) + ") AS s", args).get(0).get("n")).longValue());
    }

    /** The ids of the next {@link #BULK} jobs a bulk action selects, oldest first. */
    List<Long> selectionIds(String action, String queue, String kind) {
        List<Object> args = new ArrayList<>();
        String from = selection(action, queue, kind, args);
        return store.withConnection(c -> rows(c, "SELECT id" + from + " ORDER BY id LIMIT " + BULK, args).stream()
                .map(r -> ((Number) r.get("id")).longValue()).toList());
    }

    /**
     * Tokens whose use is unknown (checked out, their use started, the leaf unable to tell): what a
     * person settles. The token's value is never read.
     */
    List<Map<String, Object>> unknownTokens() {
        return store.withConnection(c -> rows(c, "SELECT t.id, t.pool, t.state, t.owner_job_id, t.owner_epoch,"
                + " t.checked_out_at, t.used_at, (SELECT j.state FROM cv_job j WHERE j.id = t.owner_job_id) AS owner_state"
                + " FROM cv_token t WHERE t.state = 'checked_out' AND t.used_at IS NOT NULL ORDER BY t.used_at, t.id LIMIT "
                + PAGE, List.of()));
    }

    private static void filter(StringBuilder sql, List<Object> args, String column, String value) {
        if (value != null && !value.isBlank()) {
            sql.append(" AND ").append(column).append(" = ?");
            args.add(value.strip());
        }
    }

    /** Rows as column -> value maps (lower-case names; timestamps as ISO-8601 instants). */
    List<Map<String, Object>> rows(Connection c, String sql, List<Object> args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(store.expand(sql))) {
            for (int i = 0; i < args.size(); i++) {
                ps.setObject(i + 1, args.get(i));
            }
            try (ResultSet rs = ps.executeQuery()) {
                var meta = rs.getMetaData();
                List<Map<String, Object>> out = new ArrayList<>();
                while (rs.next()) {
                    Map<String, Object> row = new LinkedHashMap<>();
                    for (int i = 1; i <= meta.getColumnCount(); i++) {
                        String name = meta.getColumnLabel(i).toLowerCase(java.util.Locale.ROOT);
                        row.put(name, isTime(meta.getColumnTypeName(i)) ? iso(Sql.instant(rs, name)) : rs.getObject(i));
                    }
                    out.add(row);
                }
                return out;
            }
        }
    }

    private static boolean isTime(String typeName) {
        return typeName != null && typeName.toLowerCase(java.util.Locale.ROOT).contains("timestamp");
    }

    private static String iso(Instant i) {
        return i == null ? null : i.toString();
    }

    static OffsetDateTime at(Instant i) {
        return OffsetDateTime.ofInstant(i, ZoneOffset.UTC);
    }
}
