package dev.converge.queue.internal;

import dev.converge.store.Store;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Wakes idle fetchers when work arrives: in-process signals always, and LISTEN/NOTIFY from other
 * processes where the database has it. Polling remains the fallback for anything missed.
 */
public final class Wakeup implements AutoCloseable {
    private final ConcurrentMap<String, Signal> signals = new ConcurrentHashMap<>();
    private PgListener listener;

    Signal signalFor(String queue) {
        return signals.computeIfAbsent(queue, q -> new Signal());
    }

    public void signal(String queue) {
        Signal s = signals.get(queue);
        if (s != null) {
            s.raise();
        }
    }

    public void signalAll() {
        signals.values().forEach(Signal::raise);
    }

    /** Starts listening for other processes' notifications on PostgreSQL, holding {@code presence} (or null) there. */
    void listen(Store store, Presence presence) {
        listener = new PgListener(store, JobStore.CHANNEL, this::signal, this::signalAll, presence);
        listener.start();
    }

    @Override
    public void close() {
        if (listener != null) {
            listener.close();
        }
        signalAll();
    }
}
