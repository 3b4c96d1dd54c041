package dev.converge.proof.chaos;

import dev.converge.store.Store;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The end of a run: waits until every flow has ended (the watchdog fails those past their
 * deadline), no site is half-way, no ledger entry is unresolved, no token is checked out and the
 * queue is empty — or until the run's time is up. Reads our database only to know when to stop
 * waiting; the verdict comes from the leaves.
 */
final class Quiescence {
    /** The service's recurring job that deletes the orphans of deleted sites ({@code OrphanRemoval.NAME}). */
    static final String ORPHAN_REMOVAL = "pv.remove-orphans";

    /** Longer than the reaper's age bound plus a round, so it has acted on whatever it can. */
    private static final Duration IDLE_ENOUGH = Duration.ofSeconds(10);

    private Quiescence() {
    }

    /** What is still moving. */
    record Pending(long sites, long flows, long ledger, long tokens, long jobs) {
        boolean none() {
            return sites == 0 && flows == 0 && ledger == 0 && tokens == 0 && jobs == 0;
        }

        @Override
        public String toString() {
            return String.format("sites in flight %d, flows running %d, ledger unresolved %d, tokens out %d, jobs queued %d",
                    sites, flows, ledger, tokens, jobs);
        }
    }

    static Pending pending(Store store) {
        return store.withConnection(c -> {
            try (Statement st = c.createStatement()) {
                // a site whose trial still runs will expire: it is still moving
                return new Pending(count(st, "SELECT COUNT(*) FROM pv_site WHERE state IN ('provisioning', 'deleting') "
                        + "OR (subscription = 'trial' AND trial_ends_at IS NOT NULL AND state = 'active')"),
                        count(st, "SELECT COUNT(*) FROM cv_flow WHERE state IN ('running', 'compensating')"),
                        count(st, "SELECT COUNT(*) FROM cv_ledger WHERE state IN ('claimed', 'uncertain', 'deleting')"),
                        count(st, "SELECT COUNT(*) FROM cv_token WHERE state = 'checked_out'"),
                        // the removal of orphans runs on its schedule for ever: awaited below, once, not counted here
                        count(st, "SELECT COUNT(*) FROM cv_job WHERE state IN ('available', 'running') AND kind <> '"
                                + ORPHAN_REMOVAL + "'"));
            }
        });
    }

    /**
     * Waits for nothing to be pending (and the client to be done), or {@code until}; returns what was
     * still pending at the end. With {@code orphanRemoval}, quiescence also takes one whole run of the
     * service's orphan removal begun after everything else stopped: a stale delivery's create that
     * landed after its site's teardown is removed by that job, on its schedule, not by any flow.
     */
    static Pending await(Store store, Instant until, BooleanSupplier clientDone, boolean orphanRemoval,
            Consumer<String> say) throws InterruptedException {
        long lastSaid = 0;
        long idleSince = 0;
        long quietMark = -1; // the last job id when everything else was quiet
        Pending p = null;
        while (true) {
            try {
                p = pending(store);
            } catch (RuntimeException e) {
                say.accept("quiescence: cannot read the database (" + e.getMessage() + "); still waiting");
            }
            boolean clientIdle = clientDone.getAsBoolean();
            if (p != null && p.none() && clientIdle) {
                if (!orphanRemoval) {
                    say.accept("quiescent: " + p);
                    return p;
                }
                try {
                    if (quietMark < 0) {
                        quietMark = lastJobId(store);
                        say.accept("quiescent: " + p + "; waiting for one run of " + ORPHAN_REMOVAL);
                    } else if (removalRunSince(store, quietMark)) {
                        say.accept("quiescent, and " + ORPHAN_REMOVAL + " ran since");
                        return p;
                    }
                } catch (RuntimeException e) {
                    say.accept("quiescence: cannot read the database (" + e.getMessage() + "); still waiting");
                }
            } else {
                quietMark = -1;
            }
            // no flow, site or job left to move: what is still unresolved (a ledger entry, a token) stays so; the
            // reaper had time to act on it
            if (p != null && clientIdle && p.sites() == 0 && p.flows() == 0 && p.jobs() == 0) {
                idleSince = idleSince == 0 ? System.nanoTime() : idleSince;
                if (System.nanoTime() - idleSince > IDLE_ENOUGH.toNanos()) {
                    say.accept("NOT quiescent, and nothing is left that could change it: " + p);
                    return p;
                }
            } else {
                idleSince = 0;
            }
            if (Instant.now().isAfter(until)) {
                say.accept("NOT quiescent when the run's time was up: " + p);
                return p;
            }
            if (System.nanoTime() - lastSaid > 5_000_000_000L && p != null) {
                say.accept("waiting for quiescence: " + p);
                lastSaid = System.nanoTime();
            }
            Thread.sleep(500);
        }
    }

    private static long lastJobId(Store store) {
        return store.withConnection(c -> {
            try (Statement st = c.createStatement()) {
                return count(st, "SELECT COALESCE(MAX(id), 0) FROM cv_job");
            }
        });
    }

    /** Whether a run of the orphan removal enqueued after {@code mark} has succeeded. */
    private static boolean removalRunSince(Store store, long mark) {
        return store.withConnection(c -> {
            try (Statement st = c.createStatement()) {
                return count(st, "SELECT COUNT(*) FROM cv_job WHERE kind = '" + ORPHAN_REMOVAL + "' AND id > " + mark
                        + " AND state = 'succeeded'") > 0;
            }
        });
    }

    /** Flows the watchdog failed because their deadline passed. */
    static long watchdogFailures(Store store) {
        return store.withConnection(c -> {
            try (Statement st = c.createStatement()) {
                return count(st, "SELECT COUNT(*) FROM cv_flow WHERE failure_reason LIKE 'deadline passed%'");
            }
        });
    }

    private static long count(Statement st, String sql) throws java.sql.SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
