package dev.converge.queue.internal;

import dev.converge.store.internal.Dialects;
import dev.converge.crash.CrashPlan;
import dev.converge.store.Store;
import dev.converge.store.internal.Dialect;
import dev.converge.store.SqlWork;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything a node's workers share: the store, the handlers, the deliveries this node holds,
 * the completer, heartbeat, rescuer and wake-ups. Built and owned by the public engine.
 */
public final class EngineRuntime {
    private static final Logger log = LoggerFactory.getLogger(EngineRuntime.class);

    private final Shared node;
    private final JsonCodec codec;
    private final Notifier notifier;
    private final Invoker invoker;
    private final Completer completer;
    private final Heartbeat heartbeat;
    private final Rescuer rescuer;
    private final HistoryRecorder history;
    private final Presence presence;

    public EngineRuntime(Store store, String nodeId, EngineSettings settings, HandlerRegistry registry, JsonCodec codec,
            CrashPlan crashPlan, List<FinishHook> hooks, CancellationProbe cancellation,
            Function<Throwable, Duration> waitsBehind, EngineObservers events) {
        Dialect dialect = Dialects.forUrl(store.config().url(), store.config().schema());
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> Shared.daemon(r, "converge-timeouts"));
        this.node = new Shared(store, dialect, nodeId, settings, registry, crashPlan, new JobFinisher(hooks, nodeId),
                cancellation, events, timers);
        this.codec = codec;
        this.notifier = dialect.supportsListen() ? new Notifier(store, JobStore.CHANNEL) : null;
        this.invoker = new Invoker(node, codec, waitsBehind);
        this.completer = new Completer(node);
        this.heartbeat = new Heartbeat(node);
        this.rescuer = new Rescuer(node);
        this.history = new HistoryRecorder(store, nodeId);
        this.presence = dialect.supportsListen() ? new Presence(dialect, nodeId) : null;
        events.add(new DeliveryMdc()); // first: what later listeners log while a handler runs carries the job
        events.add(history);
    }

    /** A worker of {@code queue} on this node, with a fixed prefetch ({@code prefetch >= 0}) or an adaptive one. */
    public QueueWorker worker(String queue, int concurrency, int prefetch) {
        return worker(queue, concurrency, prefetch, null);
    }

    /** As {@link #worker(String, int, int)}, its handlers on threads of {@code handlerThreads} (null: the engine's own). */
    public QueueWorker worker(String queue, int concurrency, int prefetch, java.util.concurrent.ThreadFactory handlerThreads) {
        return new QueueWorker(node, invoker, completer, queue, concurrency, prefetch, handlerThreads);
    }

    /** The queues' history this node keeps (its deliveries' counts; the depth when it leads). */
    /** The node's shared parts, for this package's tests. */
    Shared node() {
        return node;
    }

    /** The node's heartbeat, for this package's tests. */
    Heartbeat heartbeat() {
        return heartbeat;
    }

    public HistoryRecorder history() {
        return history;
    }

    /** With tracing on: the jobs that finish hooks insert continue the trace of the job that finished. */
    public void handOffTraces() {
        node.finisher.handOffTraces(true);
    }

    /** Adds a listener to what this node does: its deliveries, the ledger, leaf calls, flows (metrics, traces, history). */
    public void observeEngine(EngineObserver o) {
        node.events.add(o);
    }

    /** All engine observers as one; each call is cheap when there are none. */
    public EngineObserver events() {
        return node.events;
    }

    public Wakeup wakeup() {
        return node.wakeup;
    }

    public Store store() {
        return node.store;
    }

    public HandlerRegistry registry() {
        return node.registry;
    }

    public JsonCodec codec() {
        return codec;
    }

    public CrashPlan crashPlan() {
        return node.crashPlan;
    }

    public EngineSettings settings() {
        return node.settings;
    }

    public String nodeId() {
        return node.nodeId;
    }

    /** A finishing context over the caller's connection, for work that must move batches, chains and flows. */
    public FinishContext finishContext(java.sql.Connection c) {
        return node.finishContext(c);
    }

    /** Work done in a transaction with the engine's finish context: it may enqueue, and move batches, chains and flows. */
    @FunctionalInterface
    public interface FinishWork<T> {
        T run(FinishContext tx) throws java.sql.SQLException;
    }

    /**
     * Runs {@code work} in a transaction of its own, then, once it committed, wakes the queues it
     * enqueued to (a job is never announced before it can be seen).
     */
    public <T> T inFinishTransaction(FinishWork<T> work) {
        return wakingAfter(node.store::inTransaction, work);
    }

    /**
     * As {@link #inFinishTransaction}, run again from the start if the database picks it as a
     * deadlock victim: for work that may lock the same rows as the engine's own completions in
     * another order, and that is safe to repeat as a whole.
     */
    public <T> T inRetriedFinishTransaction(FinishWork<T> work) {
        return wakingAfter(node.store::inRetriedTransaction, work);
    }

    private <T> T wakingAfter(java.util.function.Function<SqlWork<T>, T> transaction, FinishWork<T> work) {
        // each attempt has a context of its own; only the committed one's queues are woken
        FinishContext[] committed = new FinishContext[1];
        T result = transaction.apply(c -> {
            FinishContext tx = finishContext(c);
            committed[0] = tx;
            return work.run(tx);
        });
        node.wakeAfter(committed[0]);
        return result;
    }

    /**
     * This node's fleet row was written afresh: its presence is recorded in it again, from the
     * listening session (a working node on PostgreSQL; a no-op otherwise).
     */
    public void recordPresence() {
        if (presence != null) {
            presence.recordAgain();
        }
    }

    public Counters counters() {
        return node.counters;
    }

    public JobFinisher finisher() {
        return node.finisher;
    }

    public JobStore jobs() {
        return node.jobs;
    }

    /** Starts the shared services of a working node. */
    public void start(boolean working) {
        if (node.dialect.supportsListen()) {
            // a node that leases jobs shows it is alive on its listening session (PostgreSQL)
            node.wakeup.listen(node.store, working ? presence : null);
        }
        if (working) {
            completer.start();
            heartbeat.start();
            rescuer.start();
            long every = HistoryRecorder.EVERY.toMillis();
            node.timers.scheduleWithFixedDelay(history::flush, every, every, TimeUnit.MILLISECONDS);
        }
    }

    /** Waits until this node holds no delivery, or the timeout passes. */
    boolean awaitNoneHeld(long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (!node.held.isEmpty() && System.currentTimeMillis() < deadline) {
            Thread.sleep(5);
        }
        return node.held.isEmpty();
    }

    /**
     * Jobs of this queue were committed by a transaction the engine owned: wakes this node's
     * fetchers now, and other processes' by a notification sent after the commit.
     */
    public void announce(String queue) {
        node.wakeup.signal(queue);
        if (notifier != null) {
            notifier.later(queue);
        }
    }

    public void shutdown() {
        if (notifier != null) {
            notifier.close();
        }
        heartbeat.close();
        rescuer.close();
        completer.close();
        node.timers.shutdownNow();
        history.flush(); // what this node did since its last row, outcomes of the shutdown included
        node.wakeup.close();
        if (!node.held.isEmpty()) {
            log.warn("{} deliveries still held at shutdown; their leases will expire and they will be redelivered",
                    node.held.size());
        }
    }
}
