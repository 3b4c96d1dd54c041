package dev.converge.queue.internal;

import dev.converge.lease.JobLease;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Extends the leases of every delivery this node holds, in one statement, several times per
 * lease. A lease the store refuses to extend was taken over: the delivery is marked lost and
 * its handler interrupted. A beat that cannot reach the store extends nothing, so local
 * deadlines run out and deliveries stop themselves before their next side effect.
 */
final class Heartbeat implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Heartbeat.class);

    private final Shared node;
    private final ScheduledExecutorService timer;
    private boolean down;

    Heartbeat(Shared node) {
        this.node = node;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> Shared.daemon(r, "converge-heartbeat"));
    }

    void start() {
        long every = node.settings.heartbeat().toMillis();
        timer.scheduleWithFixedDelay(this::beat, every, every, TimeUnit.MILLISECONDS);
    }

    /** One beat; false if it extended nothing (no lease held, the store unreachable, or the turn skipped). */
    boolean beat() {
        List<RunningJob> snapshot = new ArrayList<>(node.held.values());
        if (snapshot.isEmpty()) {
            return false;
        }
        List<JobLease> leases = new ArrayList<>(snapshot.size());
        for (RunningJob r : snapshot) {
            leases.add(r.job.lease());
        }
        // never beside a completion or rescue of this node's rows (see Shared.rowWriters); a beat that waits a whole
        // interval for one gives its turn to the next (a lease outlasts three beats)
        boolean turn;
        try {
            turn = node.rowWriters.writeLock().tryLock(node.settings.heartbeat().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        if (!turn) {
            log.debug("heartbeat skipped: this node's completions held its job rows for a whole interval");
            return false;
        }
        long sentAt = System.nanoTime();
        boolean[] extended;
        try {
            extended = node.store.withConnection(c -> node.jobs.extendLeases(c, leases, node.settings.lease().toMillis(),
                    node.store.clock().sqlNow()));
        } catch (RuntimeException e) {
            if (!down) {
                log.warn("cannot extend {} lease(s) ({}); deliveries stop when their lease runs out", leases.size(),
                        e.getMessage());
                down = true;
            }
            return false;
        } finally {
            node.rowWriters.writeLock().unlock();
        }
        if (down) {
            log.info("leases are being extended again");
            down = false;
        }
        long deadline = sentAt + node.settings.lease().toNanos();
        for (int i = 0; i < snapshot.size(); i++) {
            RunningJob r = snapshot.get(i);
            if (extended[i]) {
                r.leaseDeadlineNanos = deadline;
            } else if (node.held.get(r.job.id()) == r) {
                r.markLost("the store refused to extend the lease: the job was taken over or finished elsewhere");
            }
        }
        return true;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
