package dev.converge.queue.internal;

import dev.converge.store.Store;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells other processes, by NOTIFY, that jobs enqueued in their own committed transaction are
 * waiting, from a thread of its own, many queues and enqueues per notification.
 *
 * <p>PostgreSQL serializes the commits of all transactions that NOTIFY (a database-wide lock is
 * held from before the commit record until after its flush): sixteen threads each enqueueing one
 * job with its NOTIFY in the same transaction committed about 300 jobs a second where bare
 * INSERTs committed 3,700. So an enqueue that owns its transaction commits the INSERT alone, and
 * the notification follows here, after the commit: with {@code synchronous_commit} off for the
 * notifying transaction only (a notification lost in a crash costs one poll, never a job), so it
 * holds that lock for no flush, and coalesced, so a burst of enqueues sends one notification per
 * queue. A notification that cannot be sent is dropped: workers poll.
 */
final class Notifier implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Notifier.class);
    private static final String SQL = "SELECT set_config('synchronous_commit', 'off', true), pg_notify(?, q) "
            + "FROM unnest(CAST(? AS text[])) AS t(q)";
    /** {@link #SQL} for the commonest case, one queue: no array to build, encode and unnest. */
    private static final String ONE = "SELECT set_config('synchronous_commit', 'off', true), pg_notify(?, ?)";

    /**
     * The least time between two notifications. A queue idle for longer is announced at once; in a
     * stream of enqueues, what commits within this long of a notification waits for the next one.
     * Sent back to back, the notifications of sixteen threads enqueueing one job each cost about
     * half as much client CPU again as the enqueues themselves (and each takes PostgreSQL's notify
     * lock), while a listener already woken by the last one was fetching anyway.
     */
    static final long MIN_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final Store store;
    private final long minGapNanos;
    private final String channel;
    private final Set<String> pending = ConcurrentHashMap.newKeySet();
    private final Object lock = new Object();
    private Thread thread;
    private boolean closed;

    Notifier(Store store, String channel) {
        this(store, channel, MIN_GAP_NANOS);
    }

    Notifier(Store store, String channel, long minGapNanos) {
        this.store = store;
        this.channel = channel;
        this.minGapNanos = minGapNanos;
    }

    /** Notifies the queue soon, after the caller's commit. */
    void later(String queue) {
        if (!pending.add(queue)) {
            // already pending: the thread has yet to take it out, and sends it after that, so after
            // this caller's commit; no need to take the lock and wake it again
            return;
        }
        synchronized (lock) {
            if (closed) {
                return;
            }
            if (thread == null) {
                thread = Shared.daemon(this::run, "converge-notify");
                thread.start();
            }
            lock.notifyAll();
        }
    }

    private void run() {
        long lastSent = System.nanoTime() - minGapNanos;
        while (true) {
            synchronized (lock) {
                while (pending.isEmpty() && !closed) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (closed && pending.isEmpty()) {
                    return;
                }
            }
            long wait;
            while ((wait = lastSent + minGapNanos - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
            send();
            lastSent = System.nanoTime();
        }
    }

    private void send() {
        List<String> queues = new ArrayList<>(pending);
        pending.removeAll(queues);
        if (queues.isEmpty()) {
            return;
        }
        try {
            store.withConnection(c -> {
                if (queues.size() == 1) {
                    try (PreparedStatement ps = c.prepareStatement(ONE)) {
                        ps.setString(1, channel);
                        ps.setString(2, queues.get(0));
                        ps.execute();
                    }
                } else {
                    try (PreparedStatement ps = c.prepareStatement(SQL)) {
                        ps.setString(1, channel);
                        ps.setArray(2, c.createArrayOf("text", queues.toArray()));
                        ps.execute();
                    }
                }
                return null;
            });
        } catch (RuntimeException e) {
            log.debug("could not notify queues {} ({}); their workers find the jobs at their next poll", queues,
                    e.getMessage());
        }
    }

    /** Sends what is pending, then stops. */
    @Override
    public void close() {
        Thread t;
        synchronized (lock) {
            closed = true;
            lock.notifyAll();
            t = thread;
        }
        if (t != null) {
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
