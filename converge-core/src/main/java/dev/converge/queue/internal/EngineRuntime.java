package dev.converge.queue.internal;

import dev.converge.crash.CrashPlan;
import dev.converge.crash.SimulatedCrash;
import dev.converge.lease.LeaseLost;
import dev.converge.queue.JobCancelledException;
import dev.converge.queue.NonRetryableException;
import dev.converge.store.Store;
import dev.converge.store.SqlWork;
import dev.converge.store.internal.Dialect;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
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
    private static final int MAX_ERROR_CHARS = 16_000;
    private static final Duration WAKE_LATER_MAX = Duration.ofMinutes(1);

    final Store store;
    final JobStore jobs;
    final String nodeId;
    final EngineSettings settings;
    final HandlerRegistry registry;
    final JsonCodec codec;
    final Wakeup wakeup = new Wakeup();
    private final Notifier notifier;
    final Counters counters = new Counters();
    final CrashPlan crashPlan;
    final JobFinisher finisher;
    final CancellationProbe cancellation;
    private final Function<Throwable, Duration> waitsBehind;
    final Map<Long, RunningJob> held = new ConcurrentHashMap<>();
    final Completer completer;
    private final Heartbeat heartbeat;
    private final Rescuer rescuer;
    private final ScheduledExecutorService timeouts;
    private final HistoryRecorder history;

    public EngineRuntime(Store store, String nodeId, EngineSettings settings, HandlerRegistry registry, JsonCodec codec,
            CrashPlan crashPlan, List<FinishHook> hooks, CancellationProbe cancellation,
            Function<Throwable, Duration> waitsBehind, EngineObservers events) {
        this.events = events;
        this.store = store;
        this.jobs = new JobStore(Dialect.forUrl(store.config().url()));
        this.nodeId = nodeId;
        this.settings = settings;
        this.registry = registry;
        this.codec = codec;
        this.crashPlan = crashPlan;
        this.finisher = new JobFinisher(hooks, nodeId);
        this.cancellation = cancellation;
        this.waitsBehind = waitsBehind;
        this.completer = new Completer(this);
        this.notifier = Dialect.forUrl(store.config().url()).supportsListen() ? new Notifier(store, JobStore.CHANNEL) : null;
        this.heartbeat = new Heartbeat(this);
        this.rescuer = new Rescuer(this);
        this.timeouts = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "converge-timeouts"));
        this.history = new HistoryRecorder(store, nodeId);
        events.add(new DeliveryMdc()); // first: what later listeners log while a handler runs carries the job
        events.add(history);
    }

    /** The queues' history this node keeps (its deliveries' counts; the depth when it leads). */
    public HistoryRecorder history() {
        return history;
    }

    static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** With tracing on: the jobs that finish hooks insert continue the trace of the job that finished. */
    public void handOffTraces() {
        finisher.handOffTraces(true);
    }

    private final EngineObservers events;

    /** Adds a listener to what this node does: its deliveries, the ledger, leaf calls, flows (metrics, traces, history). */
    public void observeEngine(EngineObserver o) {
        events.add(o);
    }

    /** All engine observers as one; each call is cheap when there are none. */
    public EngineObserver events() {
        return events;
    }

    public Wakeup wakeup() {
        return wakeup;
    }

    public Store store() {
        return store;
    }

    public HandlerRegistry registry() {
        return registry;
    }

    public JsonCodec codec() {
        return codec;
    }

    public CrashPlan crashPlan() {
        return crashPlan;
    }

    public EngineSettings settings() {
        return settings;
    }

    public String nodeId() {
        return nodeId;
    }

    /** A finishing context over the caller's connection, for work that must move batches, chains and flows. */
    public FinishContext finishContext(java.sql.Connection c) {
        return new FinishContext(c, jobs, Dialect.forUrl(store.config().url()), store.clock().sqlNow());
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
        return wakingAfter(store::inTransaction, work);
    }

    /**
     * As {@link #inFinishTransaction}, run again from the start if the database picks it as a
     * deadlock victim: for work that may lock the same rows as the engine's own completions in
     * another order, and that is safe to repeat as a whole.
     */
    public <T> T inRetriedFinishTransaction(FinishWork<T> work) {
        return wakingAfter(store::inRetriedTransaction, work);
    }

    private <T> T wakingAfter(java.util.function.Function<SqlWork<T>, T> transaction, FinishWork<T> work) {
        // each attempt has a context of its own; only the committed one's queues are woken
        FinishContext[] committed = new FinishContext[1];
        T result = transaction.apply(c -> {
            FinishContext tx = finishContext(c);
            committed[0] = tx;
            return work.run(tx);
        });
        committed[0].queuesToWake().forEach(wakeup::signal);
        wakeLater(committed[0]);
        return result;
    }

    /**
     * Sets a timer for each queue a committed transaction made jobs due in soon. Only delays up to
     * {@link #WAKE_LATER_MAX} get one: a longer wait loses little to the poll, and the timers stay few.
     */
    void wakeLater(FinishContext committed) {
        committed.queuesToWakeLater().forEach((queue, delays) -> delays.forEach(ms -> {
            if (ms <= WAKE_LATER_MAX.toMillis()) {
                try {
                    timeouts.schedule(() -> wakeup.signal(queue), ms, TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.RejectedExecutionException shuttingDown) {
                    // the node is stopping: nothing of it will fetch again
                }
            }
        }));
    }

    public Counters counters() {
        return counters;
    }

    public JobFinisher finisher() {
        return finisher;
    }

    public JobStore jobs() {
        return jobs;
    }

    /** Starts the shared services of a working node. */
    public void start(boolean working) {
        if (Dialect.forUrl(store.config().url()).supportsListen()) {
            wakeup.listen(store);
        }
        if (working) {
            completer.start();
            heartbeat.start();
            rescuer.start();
            long every = HistoryRecorder.EVERY.toMillis();
            timeouts.scheduleWithFixedDelay(history::flush, every, every, TimeUnit.MILLISECONDS);
        }
    }

    /** Runs one delivery's handler; returns its outcome, or null when the delivery must write nothing. */
    Outcome invoke(RunningJob r) {
        LeasedJob job = r.job;
        HandlerRegistry.Registered<?> reg = registry.get(job.kind());
        if (reg == null || reg.handler() == null) {
            return new Outcome.Failed("no handler for job type '" + job.kind() + "' on node " + nodeId, false);
        }
        Object payload;
        try {
            payload = codec.read(job.payload(), reg.type().payloadType(), job.kind());
        } catch (RuntimeException e) {
            return new Outcome.Failed(e.getMessage(), false);
        }
        DefaultDelivery ctx = new DefaultDelivery(this, r);
        Duration timeout = job.timeoutMs() != null ? Duration.ofMillis(job.timeoutMs()) : reg.type().timeout();
        ScheduledFuture<?> timer = timeout == null ? null : timeouts.schedule(() -> {
            Thread t = r.thread;
            if (t != null) {
                r.timedOut = true;
                t.interrupt();
            }
        }, timeout.toMillis(), TimeUnit.MILLISECONDS);
        EngineObserver.Activity around = events.running(job);
        long startNanos = System.nanoTime();
        if (!events.isEmpty() && job.runAt() != null) {
            Instant now = store.clock().localNow();
            // due since the later of its run time and its creation: a continuation is due since its flow began
            // (it sorts first), but it did not wait before it existed
            Instant due = job.createdAt() != null && job.createdAt().isAfter(job.runAt()) ? job.createdAt() : job.runAt();
            events.started(job, Math.max(0, now.toEpochMilli() - due.toEpochMilli()));
        }
        Throwable thrown = null;
        try {
            try {
                call(reg.handler(), payload, ctx);
            } catch (Throwable t) {
                thrown = t;
                throw t;
            }
            if (r.timedOut) {
                return new Outcome.Failed("timed out after " + timeout.toMillis() + "ms", true);
            }
            return ctx.releaseDelay() != null ? new Outcome.Released(ctx.releaseDelay().toMillis(), ctx.refund()) : Outcome.SUCCEEDED;
        } catch (SimulatedCrash crash) {
            throw crash;
        } catch (LeaseLost e) {
            r.markLost(e.getMessage());
            return null;
        } catch (JobCancelledException e) {
            return new Outcome.Cancelled(e.getMessage());
        } catch (NonRetryableException e) {
            return new Outcome.Failed(describe(e), false);
        } catch (Throwable e) {
            if (r.lost) {
                return null;
            }
            if (r.timedOut) {
                return new Outcome.Failed("timed out after " + timeout.toMillis() + "ms: " + describe(e), true);
            }
            if (r.shutdownInterrupted) {
                return new Outcome.Released(0, false);
            }
            Duration held = waitsBehind.apply(e);
            if (held != null) {
                // waiting behind another live owner is not a failure: look again later, attempt refunded
                long wait = held.toMillis();
                long delay = wait + java.util.concurrent.ThreadLocalRandom.current().nextLong(wait / 2 + 1);
                log.debug("job {} ({}) waits {}ms: {}", job.id(), job.kind(), delay, e.getMessage());
                return new Outcome.Released(delay, true);
            }
            return new Outcome.Failed(describe(e), true);
        } finally {
            end(around, thrown);
            if (!events.isEmpty()) {
                events.ran(job, System.nanoTime() - startNanos);
            }
            if (timer != null) {
                timer.cancel(false);
            }
            Thread.interrupted(); // a late timeout or heartbeat interrupt must not leak into the next job
        }
    }

    private static void end(EngineObserver.Activity around, Throwable thrown) {
        try {
            around.end(thrown == null ? "ok" : "error", thrown);
        } catch (RuntimeException e) {
            log.debug("a listener failed to end a delivery", e);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> void call(DeliveryHandler<T> handler, Object payload, DefaultDelivery ctx) throws Exception {
        handler.handle((T) payload, ctx);
    }

    /** The error text kept on a failed job: the exception and its stack, bounded. */
    static String describe(Throwable e) {
        StringWriter sw = new StringWriter();
        e.printStackTrace(new PrintWriter(sw));
        String s = sw.toString();
        return s.length() <= MAX_ERROR_CHARS ? s : s.substring(0, MAX_ERROR_CHARS) + "\n... (truncated)";
    }

    /**
     * Forgets a delivery this node held; its worker gets the slot back. The slot is freed even when
     * a newer delivery of the same job has replaced this one in {@code held} (the job expired and
     * came back to this node while the old handler still ran): otherwise that slot leaked for good.
     */
    void forget(RunningJob r) {
        held.remove(r.job.id(), r);
        if (r.end()) {
            r.worker.slotFreed(r);
        }
    }

    /** Waits until this node holds no delivery, or the timeout passes. */
    boolean awaitNoneHeld(long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (!held.isEmpty() && System.currentTimeMillis() < deadline) {
            Thread.sleep(5);
        }
        return held.isEmpty();
    }

    /**
     * Jobs of this queue were committed by a transaction the engine owned: wakes this node's
     * fetchers now, and other processes' by a notification sent after the commit.
     */
    public void announce(String queue) {
        wakeup.signal(queue);
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
        timeouts.shutdownNow();
        history.flush(); // what this node did since its last row, outcomes of the shutdown included
        wakeup.close();
        if (!held.isEmpty()) {
            log.warn("{} deliveries still held at shutdown; their leases will expire and they will be redelivered",
                    held.size());
        }
    }
}
