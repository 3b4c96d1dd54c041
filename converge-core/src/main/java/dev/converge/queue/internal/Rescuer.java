package dev.converge.queue.internal;

import dev.converge.queue.JobState;
import dev.converge.queue.RetryPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts back jobs whose lease expired by the database clock (their worker was killed, paused or
 * cut off), or whose node is gone before that (on PostgreSQL, see {@link Presence}), or fails them
 * when that was their last attempt. Any number of nodes may run it at
 * once: rows are locked SKIP LOCKED and every change is fenced by the expired delivery's epoch,
 * so a job that completed in the meantime is left alone.
 */
final class Rescuer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Rescuer.class);
    static final String EXPIRED = "lease expired: the worker holding it stopped heartbeating (killed, paused or cut off)";
    static final String GONE = "lease expired early: the node holding it is gone (its database session ended: the process "
            + "died or lost its connection)";

    private final Shared node;
    private final ScheduledExecutorService timer;

    Rescuer(Shared node) {
        this.node = node;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> Shared.daemon(r, "converge-rescue"));
    }

    /**
     * The first pass at once: a node that starts is most often the replacement of one that died, whose jobs
     * are due back now, not a rescue interval later. The passes after it are spread over the interval, so
     * that the nodes of a fleet started together do not all look at the same moment.
     */
    void start() {
        long every = node.settings.rescue().toMillis();
        long second = ThreadLocalRandom.current().nextLong(every / 2 + 1) + every / 2;
        timer.execute(this::safeRescue);
        timer.scheduleWithFixedDelay(this::safeRescue, second, every, TimeUnit.MILLISECONDS);
        if (every > GONE_EVERY_MS && node.jobs.seesGoneNodes()) {
            long first = ThreadLocalRandom.current().nextLong(GONE_EVERY_MS / 2 + 1) + GONE_EVERY_MS / 2;
            timer.scheduleWithFixedDelay(this::safeRescueGone, first, GONE_EVERY_MS, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * How often the leases of gone nodes are looked for between the rescue passes, where the database
     * tells a gone node (PostgreSQL): a killed node's jobs are back within about a second, not within a
     * rescue interval (a sixth of the lease: 5 s by default). The look is one indexed read of the running
     * jobs whose node's lock is gone; the expired leases wait for the next whole pass, as before.
     */
    static final long GONE_EVERY_MS = 1000;

    private void safeRescue() {
        try {
            rescueOnce();
        } catch (RuntimeException e) {
            log.warn("rescue pass failed: {}", e.getMessage());
        }
    }

    private void safeRescueGone() {
        try {
            rescueTogether(false);
        } catch (RuntimeException e) {
            log.debug("look for gone nodes' leases failed ({}); the next whole rescue pass settles them", e.getMessage());
        }
    }

    /**
     * One pass; returns how many expired deliveries it settled. The expired jobs are settled in
     * one transaction; if that fails, one by one, so that a row whose settling always fails (a
     * finish hook that throws for it) cannot roll back the whole pass on every node, pass after
     * pass: that row is parked as failed with its error, visibly, and the others are rescued.
     */
    int rescueOnce() {
        try {
            return rescueTogether(true);
        } catch (RuntimeException e) {
            log.warn("rescue pass failed as a whole ({}); settling the expired jobs one by one", e.getMessage());
            return rescueOneByOne();
        }
    }

    /** One pass over the expired leases (when {@code expiredToo}) and those of gone nodes, in one transaction. */
    private int rescueTogether(boolean expiredToo) {
        if (!node.store.withConnection(c -> node.jobs.anyToTakeBack(c, node.nodeId, expiredToo, node.store.clock().sqlNow()))) {
            return 0;
        }
        List<String> wake = new ArrayList<>();
        int n = node.inRowWritingTransaction(c -> {
            FinishContext tx = node.finishContext(c);
            int settled = settle(tx, due(c, tx.now(), expiredToo), wake);
            wake.addAll(tx.queuesToWake());
            return settled;
        });
        node.counters.rescued.add(n);
        if (n > 0) {
            node.events.rescued(n);
        }
        wake.forEach(node.wakeup::signal);
        return n;
    }

    private int rescueOneByOne() {
        List<Due> expired = node.store.withConnection(c -> due(c, node.store.clock().sqlNow(), true));
        int n = 0;
        for (Due job : expired) {
            List<String> wake = new ArrayList<>();
            try {
                n += node.store.inRetriedTransaction(c -> {
                    wake.clear();
                    FinishContext tx = node.finishContext(c);
                    int settled = settle(tx, List.of(job), wake);
                    wake.addAll(tx.queuesToWake());
                    return settled;
                });
                wake.forEach(node.wakeup::signal);
            } catch (RuntimeException e) {
                if (park(job.job(), e)) {
                    n++;
                }
            }
        }
        node.counters.rescued.add(n);
        if (n > 0) {
            node.events.rescued(n);
        }
        return n;
    }

    /** A delivery to take back, and why. */
    private record Due(LeasedJob job, String why) {
    }

    /** The deliveries to take back: leases expired, then leases of nodes that are gone; locked for the caller's transaction. */
    private List<Due> due(java.sql.Connection c, java.time.Instant now, boolean expiredToo) throws java.sql.SQLException {
        List<Due> out = new ArrayList<>();
        if (expiredToo) {
            for (LeasedJob job : node.jobs.expiredLeases(c, 500, now)) {
                out.add(new Due(job, EXPIRED));
            }
        }
        for (LeasedJob job : node.jobs.orphanedLeases(c, node.nodeId, 500, now)) {
            out.add(new Due(job, GONE));
        }
        return out;
    }

    /** Settles deliveries taken back in the caller's transaction; returns how many were still held by the one taken from. */
    private int settle(FinishContext tx, List<Due> expired, List<String> wake) throws java.sql.SQLException {
        List<Completion> items = new ArrayList<>(expired.size());
        for (Due d : expired) {
            // redelivered at once; only a job with no attempts left fails here
            items.add(new Completion(d.job(), new Outcome.Expired(d.why()), RetryPolicy.never()));
        }
        boolean[] applied = node.finisher.apply(tx, items);
        int n = 0;
        for (int i = 0; i < applied.length; i++) {
            if (applied[i]) {
                n++;
                LeasedJob job = expired.get(i).job();
                wake.add(job.queue());
                if (job.attemptsLeft()) {
                    // due again now, on whichever node has a free slot: not only this one, whose slots may all be busy
                    tx.wake(job.queue());
                }
                log.info("job {} ({}): {}; {}", job.lease(), job.kind(), expired.get(i).why(),
                        job.attemptsLeft() ? "put back for redelivery" : "that was its last attempt");
            }
        }
        return n;
    }

    /** Fails an expired job whose settling itself fails, without its hooks; false if that did not land either. */
    private boolean park(LeasedJob job, RuntimeException cause) {
        String error = "lease expired; settling that failed, so the job is parked here without telling its batch, "
                + "chain or flow: " + Shared.describe(cause);
        try {
            boolean landed = node.store.withConnection(c -> node.jobs.finish(c, List.of(new Decision.Finish(job.lease(),
                    JobState.FAILED, error)), node.store.clock().sqlNow())[0]);
            if (landed) {
                node.counters.failed.increment();
                log.warn("job {} ({}): its lease expired and settling it failed ({}); parked as failed with that error",
                        job.lease(), job.kind(), cause.getMessage());
            }
            return landed;
        } catch (RuntimeException e) {
            log.warn("job {} ({}): its lease expired and neither settling nor parking it worked ({}); next pass",
                    job.lease(), job.kind(), e.getMessage());
            return false;
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
