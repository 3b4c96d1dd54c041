package dev.converge.recurring.internal;

import dev.converge.store.internal.Dialects;
import dev.converge.recurring.MissedSlots;
import dev.converge.recurring.RecurringJob;
import dev.converge.recurring.RecurringJobs;
import dev.converge.recurring.RecurringView;
import dev.converge.flow.ManualAction;
import dev.converge.queue.EnqueueResult;
import dev.converge.queue.Job;
import dev.converge.store.Store;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The engine's {@link RecurringJobs}. */
public final class RecurringJobsService implements RecurringJobs {
    private static final Logger log = LoggerFactory.getLogger(RecurringJobs.class);

    /** Enqueues one job inside the given transaction. */
    @FunctionalInterface
    public interface Enqueuer {
        EnqueueResult enqueue(Connection c, Job<?> job) throws SQLException;
    }

    private final Store store;
    private final RecurringStore table;
    private final List<RecurringJob<?>> jobs;
    private final Enqueuer enqueuer;
    /**
     * The latest slot of each job this node knows to be decided (run, skipped or passed paused), by itself or
     * by another node. A slot's decision is never undone and slots only move forward, so a round in a slot at
     * or before it has nothing to decide and sends nothing: the leader's round, every second by default,
     * otherwise locked every job's row in a transaction of its own to find that out.
     */
    private final Map<String, Instant> decided = new java.util.concurrent.ConcurrentHashMap<>();

    public RecurringJobsService(Store store, List<RecurringJob<?>> jobs, Enqueuer enqueuer) {
        this.store = store;
        this.table = new RecurringStore(Dialects.forUrl(store.config().url(), store.config().schema()));
        this.jobs = List.copyOf(jobs);
        this.enqueuer = enqueuer;
    }

    /** The declared recurring jobs. */
    public List<RecurringJob<?>> declared() {
        return jobs;
    }

    /** One round over every recurring job; returns how many runs it enqueued. */
    public int tick() {
        int enqueued = 0;
        for (RecurringJob<?> job : jobs) {
            try {
                enqueued += decide(job) ? 1 : 0;
            } catch (RuntimeException e) {
                log.warn("recurring job {} not decided this round: {}", job.name(), e.getMessage());
            }
        }
        return enqueued;
    }

    private boolean decide(RecurringJob<?> job) {
        Instant now = store.clock().localNow();
        Instant slot = job.schedule().latestAtOrBefore(now);
        if (slot == null) {
            return false;
        }
        Instant known = decided.get(job.name());
        if (known != null && !slot.isAfter(known)) {
            return false;
        }
        Instant sqlNow = store.clock().sqlNow();
        boolean enqueued = store.inTransaction(c -> {
            RecurringStore.Row row = table.lock(c, job.name());
            if (row == null) {
                // first round ever: the slot that already passed is not run; the next one is
                table.insertFirst(c, job.name(), slot, sqlNow);
                return false;
            }
            if (!slot.isAfter(row.lastSlot())) {
                return false;
            }
            if (row.pausedAt() != null) {
                table.decided(c, job.name(), slot, null, true, sqlNow);
                log.debug("recurring job {}: slot {} passes, paused", job.name(), slot);
                return false;
            }
            Instant expected = job.schedule().nextAfter(row.lastSlot());
            boolean missedSome = expected != null && expected.isBefore(slot);
            boolean late = Duration.between(slot, now).compareTo(job.grace()) > 0;
            if (job.missedSlots() == MissedSlots.SKIP && late) {
                table.decided(c, job.name(), slot, null, true, sqlNow);
                log.info("recurring job {}: slot {} found {} late, skipped", job.name(), slot, Duration.between(slot, now));
                return false;
            }
            EnqueueResult r = enqueue(c, job, slot);
            table.decided(c, job.name(), slot, r.jobId(), false, sqlNow);
            if (missedSome) {
                log.info("recurring job {}: slots from {} to before {} were missed; run once for {}", job.name(),
                        expected, slot, slot);
            }
            return !r.duplicate();
        });
        // committed: this slot is decided, whichever node decided it (a row ahead of this node's clock is
        // learnt at its next slot)
        decided.merge(job.name(), slot, (a, b) -> a.isAfter(b) ? a : b);
        return enqueued;
    }

    private static <T> EnqueueResult enqueue(Connection c, RecurringJob<T> job, Instant slot, Enqueuer enqueuer)
            throws SQLException {
        return enqueuer.enqueue(c, Job.of(job.type(), job.payloadFor(slot)).uniqueKey(job.uniqueKey(slot)));
    }

    private EnqueueResult enqueue(Connection c, RecurringJob<?> job, Instant slot) throws SQLException {
        return enqueue(c, job, slot, enqueuer);
    }

    /** What an operator sees of each recurring job: last decided slot, its job, the next slot. */
    public List<RecurringView> list() {
        Instant now = store.clock().localNow();
        return store.withConnection(c -> {
            List<RecurringView> out = new ArrayList<>();
            for (RecurringJob<?> job : jobs) {
                RecurringStore.Row row = table.get(c, job.name());
                Instant next = job.schedule().nextAfter(row == null ? now : maxOf(row.lastSlot(), job.schedule().latestAtOrBefore(now)));
                out.add(new RecurringView(job.name(), job.type().name(), job.type().queue(), job.schedule().describe(),
                        job.missedSlots(), row == null ? null : row.lastSlot(), row == null ? null : row.lastJobId(),
                        row == null ? 0 : row.skipped(), next, row == null ? null : row.pausedAt(),
                        row == null ? null : row.lastAction()));
            }
            return out;
        });
    }

    /**
     * Pauses a recurring job across the fleet: its slots pass as skipped until it is resumed (a
     * run already enqueued still runs). Records who and why. False if it was paused already.
     *
     * @throws java.util.NoSuchElementException if no recurring job has that name
     * @throws IllegalStateException on the previous release's schema (migrate first)
     */
    public boolean pause(String name, String actor, String reason) {
        return act(name, "paused", actor, reason);
    }

    /**
     * Resumes a paused recurring job from its next slot (the slots that passed while paused are not
     * run). Records who and why. False if it was not paused.
     */
    public boolean resume(String name, String actor, String reason) {
        return act(name, "resumed", actor, reason);
    }

    /**
     * Enqueues a run of a recurring job now, as if a slot fell now (its payload for this instant),
     * beside its schedule, which goes on unchanged; paused or not. Records who and why. Returns the job's id.
     */
    public long runNow(String name, String actor, String reason) {
        RecurringJob<?> job = declaredNamed(name);
        ManualAction.validate(actor, reason);
        Instant now = store.clock().localNow();
        Instant sqlNow = store.clock().sqlNow();
        long id = store.inTransaction(c -> {
            EnqueueResult r = enqueue(c, job, now);
            ensureRow(c, job, now, sqlNow);
            if (table.pausable(c)) {
                table.act(c, name, "ran_now", actor, reason, sqlNow);
            }
            return r.jobId();
        });
        log.info("recurring job {} run now by {} (job {}): {}", name, actor, id, reason);
        return id;
    }

    private boolean act(String name, String action, String actor, String reason) {
        RecurringJob<?> job = declaredNamed(name);
        ManualAction.validate(actor, reason);
        Instant now = store.clock().localNow();
        Instant sqlNow = store.clock().sqlNow();
        boolean changed = store.inTransaction(c -> {
            if (!table.pausable(c)) {
                throw new IllegalStateException("pausing a recurring job needs this release's schema (cv_recurring."
                        + "paused_at): run the migrations first");
            }
            ensureRow(c, job, now, sqlNow);
            return table.act(c, name, action, actor, reason, sqlNow);
        });
        if (changed) {
            log.info("recurring job {} {} by {}: {}", name, action, actor, reason);
        }
        return changed;
    }

    /** A job never decided has no row yet: its row starts at its latest slot, which is not run. */
    private void ensureRow(Connection c, RecurringJob<?> job, Instant now, Instant sqlNow) throws SQLException {
        if (table.get(c, job.name()) == null) {
            Instant slot = job.schedule().latestAtOrBefore(now);
            table.insertFirst(c, job.name(), slot != null ? slot : now, sqlNow);
        }
    }

    private RecurringJob<?> declaredNamed(String name) {
        return jobs.stream().filter(j -> j.name().equals(name)).findFirst().orElseThrow(
                () -> new java.util.NoSuchElementException("There is no recurring job named '" + name + "'."));
    }

    public Optional<RecurringView> view(String name) {
        return list().stream().filter(v -> v.name().equals(name)).findFirst();
    }

    private static Instant maxOf(Instant a, Instant b) {
        return b == null || a.isAfter(b) ? a : b;
    }

    /** Validates that names are unique; called when the engine is built. */
    public static void checkNames(List<RecurringJob<?>> jobs) {
        Map<String, Boolean> seen = new java.util.HashMap<>();
        for (RecurringJob<?> j : jobs) {
            if (seen.put(j.name(), Boolean.TRUE) != null) {
                throw new IllegalArgumentException("two recurring jobs are named '" + j.name()
                        + "': give one another name with withName()");
            }
        }
    }
}
