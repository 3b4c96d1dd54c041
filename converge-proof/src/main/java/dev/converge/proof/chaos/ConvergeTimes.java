package dev.converge.proof.chaos;

import dev.converge.store.Store;
import dev.converge.store.Sql;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * How long each accepted request took to converge: a site request from its acceptance to the
 * site's first final state (active, failed, needs attention — or deleted, if it was deleted
 * while provisioning); a delete from the client's 202 to the site being deleted.
 */
record ConvergeTimes(List<Long> createMillis, List<Long> deleteMillis, List<Sample> samples) {

    /** One measured request: when the client was told it was accepted, and how long it took to converge. */
    record Sample(Instant accepted, long millis) {
    }

    static ConvergeTimes measure(Store store, Map<String, Instant> acceptedSites, Map<String, Instant> acceptedDeletes) {
        List<Long> creates = new ArrayList<>();
        List<Long> deletes = new ArrayList<>();
        List<Sample> samples = new ArrayList<>();
        store.withConnection(c -> {
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT s.public_id, s.state, s.created_at, "
                    + "s.updated_at, (SELECT MIN(e.created_at) FROM pv_event e WHERE e.site_id = s.id AND e.kind IN "
                    + "('site.active', 'site.failed', 'site.needs_attention')) AS settled_at, (SELECT MIN(e.created_at) "
                    + "FROM pv_event e WHERE e.site_id = s.id AND e.kind = 'site.deleted') AS deleted_at FROM pv_site s")) {
                while (rs.next()) {
                    String id = rs.getString("public_id");
                    String state = rs.getString("state");
                    Instant created = Sql.instant(rs, "created_at");
                    Instant settled = Sql.instant(rs, "settled_at");
                    Instant deleted = Sql.instant(rs, "deleted_at");
                    boolean moving = state.equals("provisioning") || state.equals("deleting");
                    Instant updated = moving ? null : Sql.instant(rs, "updated_at");
                    if (acceptedSites.containsKey(id)) {
                        Instant end = settled != null ? settled : deleted != null ? deleted : updated;
                        if (end != null) {
                            long took = Math.max(0, Duration.between(created, end).toMillis());
                            creates.add(took);
                            samples.add(new Sample(acceptedSites.get(id), took));
                        }
                    }
                    Instant deleteAccepted = acceptedDeletes.get(id);
                    if (deleteAccepted != null) {
                        Instant end = deleted != null ? deleted : updated;
                        if (end != null) {
                            long took = Math.max(0, Duration.between(deleteAccepted, end).toMillis());
                            deletes.add(took);
                            samples.add(new Sample(deleteAccepted, took));
                        }
                    }
                }
            }
            return null;
        });
        return new ConvergeTimes(creates, deletes, samples);
    }

    /**
     * The times of the requests accepted from {@code from} on: a run starts a dozen cold JVMs at once,
     * and on a small machine the first seconds of traffic measure their warm-up more than the engine.
     */
    List<Long> acceptedFrom(Instant from) {
        return samples.stream().filter(s -> !s.accepted().isBefore(from)).map(Sample::millis).toList();
    }

    /**
     * The p99 of the requests accepted in each {@code window} of the traffic from {@code start} (-1 for a
     * window with none): where a run's tail comes from, its cold start or later.
     */
    List<Long> p99ByWindow(Instant start, java.time.Duration window) {
        java.util.TreeMap<Long, List<Long>> by = new java.util.TreeMap<>();
        for (Sample s : samples) {
            long w = Math.max(0, Duration.between(start, s.accepted()).toMillis() / window.toMillis());
            by.computeIfAbsent(w, k -> new ArrayList<>()).add(s.millis());
        }
        List<Long> out = new ArrayList<>();
        long last = by.isEmpty() ? -1 : by.lastKey();
        for (long w = 0; w <= last; w++) {
            out.add(percentile(by.getOrDefault(w, List.of()), 99));
        }
        return out;
    }

    List<Long> all() {
        List<Long> a = new ArrayList<>(createMillis);
        a.addAll(deleteMillis);
        return a;
    }

    /** Nearest-rank percentile in milliseconds; -1 when there is nothing to measure. */
    static long percentile(List<Long> values, double p) {
        if (values.isEmpty()) {
            return -1;
        }
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }
}
