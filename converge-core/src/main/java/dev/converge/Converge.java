package dev.converge;

import dev.converge.store.internal.Dialects;
import dev.converge.batch.Batches;
import dev.converge.batch.internal.JobSpec;
import dev.converge.chain.Chains;
import dev.converge.claim.Claims;
import dev.converge.claim.internal.Leadership;
import dev.converge.flow.Flows;
import dev.converge.handler.JobHandler;
import dev.converge.ledger.Ledger;
import dev.converge.ledger.ResourceType;
import dev.converge.ledger.internal.ResourceTypes;
import dev.converge.token.Tokens;
import dev.converge.queue.RetryPolicy;
import dev.converge.crash.CrashPlan;
import dev.converge.queue.EngineStats;
import dev.converge.queue.EnqueueResult;
import dev.converge.queue.Job;
import dev.converge.queue.JobRow;
import dev.converge.queue.internal.JobStore;
import dev.converge.queue.internal.LeasedJob;
import dev.converge.queue.JobType;
import dev.converge.queue.internal.NewJob;
import dev.converge.queue.internal.EngineRuntime;
import dev.converge.queue.internal.EngineSettings;
import dev.converge.queue.internal.FinishHook;
import dev.converge.queue.internal.HandlerRegistry;
import dev.converge.queue.internal.JsonCodec;
import dev.converge.queue.internal.QueueWorker;
import dev.converge.queue.internal.UnhandledJobs;
import dev.converge.queue.internal.Fleet;
import dev.converge.queue.internal.HistoryRecorder;
import dev.converge.queue.HistoryPoint;
import dev.converge.queue.NodeInfo;
import dev.converge.recurring.Occurrence;
import dev.converge.recurring.RecurringJob;
import dev.converge.recurring.RecurringJobs;
import dev.converge.recurring.Schedule;
import dev.converge.retention.Retention;
import dev.converge.retention.RetentionPolicy;
import dev.converge.store.Store;
import dev.converge.store.StoreException;
import java.net.InetAddress;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine on one node: enqueues jobs, and works the queues it was given. Any number of nodes
 * (processes, machines) can share one PostgreSQL store; each job's delivery is leased to one of
 * them at a time, fenced by an epoch.
 *
 * <pre>{@code
 * try (Converge engine = Converge.builder(store)
 *         .handle(SEND_WELCOME, (payload, ctx) -> mailer.send(payload))
 *         .queue("default", 16)
 *         .build()) {
 *     engine.start();
 *     engine.enqueue(Job.of(SEND_WELCOME, new Welcome(42)));
 * }
 * }</pre>
 */
public final class Converge implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Converge.class);

    private final Store store;
    private final String nodeId;
    private final EngineSettings settings;
    private final HandlerRegistry registry;
    private final JsonCodec codec;
    private final EngineRuntime runtime;
    private final List<QueueWorker> workers = new ArrayList<>();
    private final Claims claims;
    private final Batches batches;
    private final Chains chains;
    private final dev.converge.flow.internal.FlowService flows;
    private final dev.converge.ledger.internal.LedgerEngine ledger;
    private final dev.converge.token.internal.TokenService tokens;
    private final Duration watchdogEvery;
    private final Duration reaperEvery;
    private final Duration reapOlderThan;
    private final List<Leadership> leaderships = new ArrayList<>();
    private final RecurringJobs recurring;
    private final Duration recurringTick;
    private final Retention retention;
    private final AutoCloseable metrics;
    private volatile boolean started;
    private volatile UnhandledJobs unhandled;
    private volatile Fleet fleet;
    private final String nodeVersion;
    private final Map<String, Integer> queueSizes;
    private volatile boolean closed;
    /** Queues this node has warned that no live node works (once each). */
    private final Set<String> warnedUnworked = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Set once close() has drained: from then on nothing is enqueued through this engine. */
    private volatile boolean stopped;
    private final dev.converge.claim.internal.LeaderRounds rounds;

    private Converge(Builder b) {
        this.store = b.store;
        this.nodeId = b.nodeId;
        this.nodeVersion = b.nodeVersion;
        this.queueSizes = new LinkedHashMap<>(b.queues);
        this.settings = new EngineSettings(b.lease, b.heartbeat, b.poll, b.rescue, b.fetchLimit, b.shutdownGrace,
                b.unhandledGrace);
        this.registry = b.registry;
        this.codec = new JsonCodec();
        EngineParts parts = new EngineParts(new EngineParts.Options(b.store, b.nodeId, b.registry, b.hooks,
                b.systemQueue, b.compensationAtLeast, b.compensationRetry, b.crashPlan, b.resources, b.tags,
                List.copyOf(b.handled.values())), settings, codec, j -> JobSpec.of(encode(j)), j -> enqueue(j));
        this.runtime = parts.runtime;
        this.batches = parts.batches;
        this.chains = parts.chains;
        this.flows = parts.flows;
        this.ledger = parts.ledger;
        this.tokens = parts.tokens;
        this.reaperEvery = b.reaper;
        this.reapOlderThan = b.reapOlderThan;
        this.watchdogEvery = b.watchdog;
        for (Map.Entry<String, Integer> q : b.queues.entrySet()) {
            workers.add(runtime.worker(q.getKey(), q.getValue(), b.prefetch, b.handlerThreads));
        }
        this.claims = new dev.converge.claim.internal.ClaimService(store, nodeId);
        this.rounds = new dev.converge.claim.internal.LeaderRounds(store, nodeId);
        this.recurring = new dev.converge.recurring.internal.RecurringJobsService(store, b.recurring, (c, j) -> enqueue(c, j));
        this.recurringTick = b.recurringTick;
        this.retention = b.retention == null ? null : new dev.converge.retention.internal.RetentionService(store, b.retention);
        this.metrics = b.meterRegistry == null ? null
                : dev.converge.metrics.internal.MicrometerBinding.bind(runtime, store, this::stats,
                        Optional.ofNullable(retention), this::jobsWithoutHandler, b.meterRegistry, b.metricsSample,
                        b.resources.all());
        if (b.openTelemetry != null) {
            dev.converge.tracing.internal.JobTracing.bind(runtime, store, b.openTelemetry);
        }
    }

    /** The runtime behind this engine, for the engine's own tests (package-private: not API). */
    EngineRuntime runtime() {
        return runtime;
    }

    /**
     * A builder of an engine on {@code store}: what the node does ({@code queue}, {@code handle}, ...) and its
     * options in groups; docs/configuration.md lists every default.
     */
    public static Builder builder(Store store) {
        return new Builder(store);
    }

    /** Starts working this node's queues (if any) and listening for wake-ups. Idempotent. */
    public synchronized Converge start() {
        if (closed) {
            throw new IllegalStateException("engine was closed");
        }
        if (!started) {
            checkTables();
            workers.forEach(QueueWorker::prepare);
            runtime.start(!workers.isEmpty());
            workers.forEach(QueueWorker::start);
            Duration live = settings.lease().compareTo(settings.heartbeat().multipliedBy(3)) > 0 ? settings.lease()
                    : settings.heartbeat().multipliedBy(3);
            fleet = new Fleet(store, nodeId, nodeVersion, queueSizes, runtime.registry().handledKinds(),
                    settings.heartbeat(), live, runtime::recordPresence).start();
            leaderships.add(new Leadership(claims, "converge:fleet", settings.heartbeat().multipliedBy(6),
                    () -> some(fleet.forgetGone(), "forgot %d node(s) not seen for an hour"), rounds, "fleet").start());
            leaderships.add(new Leadership(claims, "converge:history", HistoryRecorder.EVERY, () -> {
                runtime.history().sample(fleetQueues());
                return null;
            }, rounds, "history").start());
            if (!workers.isEmpty()) {
                unhandled = new UnhandledJobs(runtime, new ArrayList<>(queueSizes.keySet()), fleet).start();
            }
            if (watchdogEvery != null) {
                leaderships.add(new Leadership(claims, "converge:watchdog", watchdogEvery,
                        () -> some(flows.failOverdue(100), "failed %d flow(s) past their deadline"), rounds,
                        "watchdog").start());
            }
            if (reaperEvery != null) {
                leaderships.add(new Leadership(claims, "converge:reaper", reaperEvery, () -> {
                    int entries = ledger.reap(reapOlderThan);
                    int tokensReaped = tokens.reap(reapOlderThan);
                    return entries + tokensReaped == 0 ? null : "scheduled " + entries + " stale ledger entr"
                            + (entries == 1 ? "y" : "ies") + " and " + tokensReaped + " token(s) for resolution";
                }, rounds, "reaper").start());
            }
            if (!recurring.declared().isEmpty()) {
                leaderships.add(new Leadership(claims, "converge:recurring", recurringTick,
                        () -> some(recurring.tick(), "enqueued %d recurring run(s)"), rounds, "recurring").start());
            }
            if (retention != null) {
                leaderships.add(new Leadership(claims, "converge:retention", retention.policy().every(), () -> {
                    dev.converge.retention.RetentionReport r = retention.round();
                    return r.total() == 0 ? null : "deleted " + r.jobs() + " jobs, " + r.batches() + " batches, "
                            + r.chains() + " chains, " + r.flows() + " flows (" + r.flowEvents() + " flow events, "
                            + r.compensations() + " compensations)";
                }, rounds, "retention").start());
            }
            started = true;
            log.info("converge node {} started on {} working {}", nodeId, store, queueNames());
        }
        return this;
    }

    /**
     * Warns, once per queue, when a job lands on a queue that no live node works: it would wait
     * without a word until one does. The fleet as this node last read it; nothing before that.
     */
    private void noticeQueue(String queue, String kind) {
        Fleet f = fleet;
        Set<String> live = f == null ? null : f.liveQueues();
        if (live == null || live.contains(queue) || !warnedUnworked.add(queue)) {
            return;
        }
        log.warn("job type '{}' was enqueued on queue '{}', which no live node works (live nodes work {}): its jobs "
                + "wait until one does; add .queue(\"{}\", n) on the nodes that handle '{}'", kind, queue,
                new java.util.TreeSet<>(live), queue, kind);
    }

    /**
     * Refuses to start on a database without the engine's tables (an engine that started anyway
     * would only log failed fetches); a database that cannot be reached is waited for by the
     * engine's loops, as at any other time.
     */
    private void checkTables() {
        boolean present;
        try {
            present = store.withConnection(c -> dev.converge.store.internal.SchemaProbe.table(Dialects.forUrl(store.config().url(), store.config().schema()), "cv_job").present(c));
        } catch (StoreException e) {
            log.warn("converge node {}: the store does not answer at start ({}); the node keeps trying", nodeId,
                    e.getMessage());
            return;
        }
        if (!present) {
            throw new IllegalStateException("the engine's tables are not in this database (no cv_job table): run "
                    + "store.migrate() before start(), or apply store.migrationLocation() with your own Flyway");
        }
    }

    private List<String> queueNames() {
        List<String> names = new ArrayList<>();
        for (QueueWorker w : workers) {
            names.add(w.queue() + "x" + w.concurrency());
        }
        return names;
    }

    public <T> EnqueueResult enqueue(JobType<T> type, T payload) {
        return enqueue(Job.of(type, payload));
    }

    /**
     * Enqueues one job in its own unit of work.
     *
     * @throws ConvergeException for a job type this engine neither handles nor declares
     * @throws IllegalStateException once {@link #close()} has returned (handlers finishing in the
     *         shutdown grace still enqueue)
     */
    public <T> EnqueueResult enqueue(Job<T> job) {
        NewJob row = encode(job);
        // one statement, one commit; the NOTIFY follows the commit from a thread of its own (see Notifier)
        JobStore.Inserted ins = store.withConnection(c -> runtime.jobs().insert(c, row, store.clock().sqlNow()));
        if (!ins.duplicate()) {
            runtime.announce(row.queue());
            runtime.events().enqueued(row.queue(), row.kind());
            noticeQueue(row.queue(), row.kind());
        }
        return new EnqueueResult(ins.id(), ins.duplicate());
    }

    /**
     * Enqueues one job inside the caller's own transaction: the job exists if and only if the
     * caller commits. The caller owns the connection and its commit. On PostgreSQL the wake-up
     * travels with the transaction (NOTIFY is delivered at commit); on H2 this node's workers are
     * signalled now, before the commit, and may find the job only at their next poll.
     *
     * @throws IllegalStateException once {@link #close()} has returned
     */
    public <T> EnqueueResult enqueue(Connection callerTransaction, Job<T> job) {
        Objects.requireNonNull(callerTransaction, "callerTransaction");
        NewJob row = encode(job);
        try {
            EnqueueResult result = insert(callerTransaction, row);
            runtime.wakeup().signal(row.queue());
            return result;
        } catch (SQLException e) {
            throw new StoreException("enqueue failed", e);
        }
    }

    /**
     * Enqueues many jobs in as few statements as the database allows (thousands per statement on
     * PostgreSQL), in one transaction. Returns ids in input order; -1 where a unique key was taken.
     *
     * @throws IllegalStateException once {@link #close()} has returned
     */
    public long[] enqueueAll(List<? extends Job<?>> jobs) {
        List<NewJob> rows = new ArrayList<>(jobs.size());
        Set<String> queues = new LinkedHashSet<>();
        for (Job<?> j : jobs) {
            NewJob row = encode(j);
            rows.add(row);
            queues.add(row.queue());
        }
        long[] ids = store.inTransaction(c -> {
            long[] out = runtime.jobs().insertMany(c, rows, store.clock().sqlNow());
            for (String q : queues) {
                Dialects.forUrl(store.config().url(), store.config().schema()).notify(c, JobStore.CHANNEL, q);
            }
            return out;
        });
        queues.forEach(runtime.wakeup()::signal);
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] >= 0) {
                runtime.events().enqueued(rows.get(i).queue(), rows.get(i).kind());
                noticeQueue(rows.get(i).queue(), rows.get(i).kind());
            }
        }
        return ids;
    }

    private EnqueueResult insert(Connection c, NewJob row) throws SQLException {
        // the notification travels in the INSERT statement itself: one round trip, delivered at the caller's commit
        JobStore.Inserted ins = runtime.jobs().insertNotifying(c, row, store.clock().sqlNow(), JobStore.CHANNEL);
        if (!ins.duplicate()) {
            runtime.events().enqueued(row.queue(), row.kind());
            noticeQueue(row.queue(), row.kind());
        }
        return new EnqueueResult(ins.id(), ins.duplicate());
    }

    /** Turns a typed job into its row, failing here (not in a worker) on an unknown type or a bad payload. */
    <T> NewJob encode(Job<T> job) {
        if (stopped) {
            // handlers finishing in the shutdown grace still enqueue (close() sets this after they are done)
            throw new IllegalStateException("this engine (node " + nodeId + ") is closed and enqueues nothing more: "
                    + "enqueue before close(), or through an engine that is running on the same store (any node runs the job)");
        }
        JobType<T> type = job.type();
        if (!registry.knows(type.name())) {
            throw new ConvergeException("unknown job type '" + type.name()
                    + "': register a handler for it, or declare it, on this engine");
        }
        String payload = codec.write(job.payload(), type.payloadType(), type.name());
        long delay = job.delayOrNull() == null ? 0 : job.delayOrNull().toMillis();
        Long timeout = type.timeout() == null ? null : type.timeout().toMillis();
        return new NewJob(job.effectiveQueue(), type.name(), payload, job.runAtOrNull(), delay,
                job.effectiveMaxAttempts(), timeout, job.uniqueKeyOrNull(), null, null, null, null);
    }

    /**
     * A person's retry of a job that failed for good: it runs again from its first attempt.
     * Fenced by the job's state, so two retries at once start it once. A job that is a step of a
     * batch, chain or flow is refused (its failure has already moved them on: retry the flow).
     *
     * @return true if this call made it run again; false if it was not failed (retried already,
     *         or still running, or it succeeded)
     * @throws IllegalArgumentException without an actor and a reason, or for a step of a flow
     * @throws java.util.NoSuchElementException if there is no such job
     */
    public boolean retryFailedJob(long id, String actor, String reason) {
        dev.converge.flow.ManualAction.validate(actor, reason);
        JobRow row = job(id).orElseThrow(() -> new java.util.NoSuchElementException("no job " + id));
        if (row.flowId() != null || row.chainId() != null || row.batchId() != null) {
            throw new IllegalArgumentException("job " + id + " is a step of "
                    + (row.flowId() != null ? "flow " + row.flowId() + ": retry the flow instead"
                    : row.chainId() != null ? "chain " + row.chainId() : "batch " + row.batchId())
                    + "; only a job that stands alone is retried by itself");
        }
        String note = "retried by " + actor + ": " + reason + (row.lastError() == null ? ""
                : " (it had failed: " + firstLine(row.lastError()) + ")");
        boolean won = store.withConnection(c -> runtime.jobs().retryFailed(c, id,
                note.length() > 4000 ? note.substring(0, 4000) : note, store.clock().sqlNow()));
        if (won) {
            runtime.wakeup().signal(row.queue());
        }
        return won;
    }

    /**
     * A person's cancel of a job that is waiting (available: not yet started, or waiting for its
     * next attempt). Fenced by the job's state and lease epoch in one conditional update, so it
     * never touches a running job, nor one leased since it was read; two cancels at once cancel it
     * once. A job that is a step of a batch, chain or flow ends as a cancelled step does, in the
     * same transaction: its batch or chain ends cancelled and its flow fails and compensates.
     * The engine's own jobs ({@code converge.*}) and a flow's jobs outside any chain or batch are
     * refused: cancelling them would strand the work that waits for them.
     *
     * @return true if this call cancelled it; false if it was not waiting (it started, ended, or
     *         was cancelled already)
     * @throws IllegalArgumentException without an actor and a reason, or for a job not cancelled by hand
     * @throws java.util.NoSuchElementException if there is no such job
     */
    public boolean cancelWaitingJob(long id, String actor, String reason) {
        dev.converge.flow.ManualAction.validate(actor, reason);
        JobRow row = job(id).orElseThrow(() -> new java.util.NoSuchElementException("no job " + id));
        if (row.kind().startsWith("converge.")) {
            throw new IllegalArgumentException("job " + id + " (" + row.kind() + ") is the engine's own work; it is not"
                    + " cancelled by hand");
        }
        if (row.flowId() != null && row.chainId() == null && row.batchId() == null) {
            throw new IllegalArgumentException("job " + id + " belongs to flow " + row.flowId()
                    + " outside its steps; it is not cancelled by hand");
        }
        if (row.state() != dev.converge.queue.JobState.AVAILABLE) {
            return false;
        }
        String note = "cancelled by " + actor + ": " + reason;
        String bounded = note.length() > 4000 ? note.substring(0, 4000) : note;
        LeasedJob asLeased = new LeasedJob(row.id(), row.queue(), row.kind(), row.payload(), row.epoch(), row.attempt(),
                row.maxAttempts(), null, row.batchId(), row.chainId(), row.chainPos(), row.flowId(), row.createdAt(),
                row.runAt());
        dev.converge.queue.internal.FinishContext[] tx = new dev.converge.queue.internal.FinishContext[1];
        boolean won = store.inTransaction(c -> {
            tx[0] = runtime.finishContext(c);
            if (!runtime.jobs().cancelWaiting(c, id, row.epoch(), bounded, tx[0].now())) {
                return false;
            }
            runtime.finisher().endedByHand(tx[0], asLeased, dev.converge.queue.JobState.CANCELLED, bounded);
            return true;
        });
        tx[0].queuesToWake().forEach(runtime.wakeup()::signal);
        return won;
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    public Optional<JobRow> job(long id) {
        return store.withConnection(c -> runtime.jobs().get(c, id));
    }

    /**
     * The attempts of a job that failed (retried, or failed for good), oldest first, each with its
     * node, start, end and whole error; its last attempt is also told by {@link #job(long)}. Empty
     * for a job that never failed, or that was deleted by retention.
     */
    public List<dev.converge.queue.JobAttempt> attempts(long jobId) {
        return store.withConnection(c -> runtime.jobs().attempts(c, jobId));
    }

    public Claims claims() {
        return claims;
    }

    public Batches batches() {
        return batches;
    }

    public Chains chains() {
        return chains;
    }

    public Flows flows() {
        return flows;
    }

    public Ledger ledger() {
        return ledger;
    }

    public Tokens tokens() {
        return tokens;
    }

    /** The recurring jobs declared on this engine, their last and next slots, and a round on demand. */
    public RecurringJobs recurring() {
        return recurring;
    }

    /** The retention task of this engine (its rounds run on the node holding the retention claim), if on. */
    public Optional<Retention> retention() {
        return Optional.ofNullable(retention);
    }

    public Store store() {
        return store;
    }

    public String nodeId() {
        return nodeId;
    }

    /**
     * Due jobs in this node's queues whose type this node has no handler for, by type, as of the
     * last look (every six rescue intervals): they wait for a node that has the handler, and fail
     * after the {@linkplain Builder#unhandledGrace unhandled-job grace}. Empty on a node that works
     * no queue.
     */
    public Map<String, Long> jobsWithoutHandler() {
        UnhandledJobs u = unhandled;
        return u == null ? Map.of() : u.waiting();
    }

    /**
     * The fleet as the nodes recorded it: every engine node that started on this store and has not
     * stopped, with its version, queues and job types; a node killed without stopping is listed
     * as not live until it has been gone for an hour. Empty before {@link #start()}.
     */
    public List<NodeInfo> nodes() {
        Fleet f = fleet;
        return f == null ? List.of() : f.nodes();
    }

    private static String some(int n, String format) {
        return n == 0 ? null : String.format(java.util.Locale.ROOT, format, n);
    }

    /**
     * What each of the fleet's leader tasks (retention, reaper, watchdog, recurring, fleet, history)
     * last did, by whichever node ran it: when, what it changed or why it failed, and its last round
     * that changed something. Empty until a leader has run a round (or on the previous release's schema).
     */
    public List<dev.converge.claim.LeaderRound> leaderRounds() {
        return rounds.list();
    }

    private Set<String> fleetQueues() {
        Set<String> out = new TreeSet<>(queueSizes.keySet());
        for (NodeInfo n : nodes()) {
            if (n.live()) {
                out.addAll(n.queues().keySet());
            }
        }
        return out;
    }

    /**
     * What {@code queue} did over the last {@code span}, summed over the fleet, oldest first: a
     * point per step (one minute up to 200 minutes, then 5, 15, 60 ... minutes, at most 200
     * points), zeros where nothing happened. Each node writes its deliveries' counts every minute
     * (and when it stops), the leader samples depth every minute; kept seven days.
     *
     * @param span from one minute to seven days
     */
    public List<HistoryPoint> history(String queue, Duration span) {
        if (queue == null || queue.isBlank()) {
            throw new IllegalArgumentException("name the queue whose history to read");
        }
        if (span == null || span.compareTo(Duration.ofMinutes(1)) < 0 || span.compareTo(HistoryRecorder.KEPT) > 0) {
            throw new IllegalArgumentException("a history spans one minute to " + HistoryRecorder.KEPT.toDays()
                    + " days, not " + span);
        }
        return runtime.history().read(queue, span);
    }

    public EngineStats stats() {
        return runtime.counters().snapshot();
    }

    /** The engine's Micrometer meters, when a registry was given to the builder. */
    public Optional<dev.converge.metrics.ConvergeMetrics> metrics() {
        return Optional.ofNullable((dev.converge.metrics.ConvergeMetrics) metrics);
    }

    /**
     * Stops gracefully: no new fetches; jobs leased but not started are given back at once;
     * running handlers get the shutdown grace to finish, then are interrupted and give their
     * jobs back; every outcome is recorded before the store is let go.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        leaderships.forEach(Leadership::close);
        if (unhandled != null) {
            unhandled.close();
        }
        if (fleet != null) {
            fleet.close();
        }
        if (metrics != null) {
            try {
                metrics.close();
            } catch (Exception e) {
                log.debug("closing metrics", e);
            }
        }
        int handedBack = 0;
        for (QueueWorker w : workers) {
            handedBack += w.stopFetching();
        }
        int running = 0;
        for (QueueWorker w : workers) {
            running += w.runningHandlers();
        }
        if (!workers.isEmpty()) {
            log.info("converge node {} stopping: {} job(s) leased but not started handed back without an attempt "
                    + "spent; {} running job(s) get up to {} to finish", nodeId, handedBack, running,
                    settings.shutdownGrace());
        }
        int interrupted = 0;
        try {
            long graceEnd = System.currentTimeMillis() + settings.shutdownGrace().toMillis();
            for (QueueWorker w : workers) {
                if (!w.awaitHandlers(Math.max(0, graceEnd - System.currentTimeMillis()))) {
                    interrupted += w.interruptRunning();
                    w.awaitHandlers(2000);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (running > 0) {
            log.info("converge node {}: {} running job(s) finished within the shutdown grace, {} interrupted and "
                    + "handed back for another node", nodeId, Math.max(0, running - interrupted), interrupted);
        }
        runtime.shutdown();
        stopped = true;
        log.info("converge node {} stopped", nodeId);
    }

    /** Builds an engine: the node's queues, handlers and resource types, and its options in five groups. */
    public static final class Builder {
        final Store store;
        final HandlerRegistry registry = new HandlerRegistry();
        final Map<String, EngineParts.Handled<?>> handled = new LinkedHashMap<>();
        final Map<String, Integer> queues = new LinkedHashMap<>();
        final List<FinishHook> hooks = new ArrayList<>();
        String systemQueue = "default";
        Duration watchdog;
        Duration reaper;
        Duration reapOlderThan = Duration.ofMinutes(5);
        final ResourceTypes resources = new ResourceTypes();
        dev.converge.ledger.ResourceTags tags = dev.converge.ledger.ResourceTags.defaults();
        Duration compensationAtLeast = Duration.ofMinutes(5);
        RetryPolicy compensationRetry = RetryPolicy.attempts(8).backoff(Duration.ofSeconds(1))
                .cappedAt(Duration.ofMinutes(1));
        String nodeId = defaultNodeId();
        String nodeVersion = engineVersion();
        Duration lease = Duration.ofSeconds(30);
        Duration heartbeat;
        Duration poll = Duration.ofSeconds(1);
        Duration rescue;
        int fetchLimit = 100;
        int prefetch = -1;
        java.util.concurrent.ThreadFactory handlerThreads;
        Duration shutdownGrace = Duration.ofSeconds(10);
        Duration unhandledGrace = Duration.ofHours(1);
        CrashPlan crashPlan = CrashPlan.NONE;
        final List<RecurringJob<?>> recurring = new ArrayList<>();
        Duration recurringTick = Duration.ofSeconds(1);
        RetentionPolicy retention = RetentionPolicy.defaults();
        Object meterRegistry;
        Object openTelemetry;
        Duration metricsSample = Duration.ofSeconds(15);

        private Builder(Store store) {
            this.store = Objects.requireNonNull(store, "store");
        }

        private static String engineVersion() {
            String v = Converge.class.getPackage().getImplementationVersion();
            return v == null ? "unversioned" : v;
        }

        private static String defaultNodeId() {
            String host;
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (Exception e) {
                host = "node";
            }
            return host + "-" + ProcessHandle.current().pid() + "-" + UUID.randomUUID().toString().substring(0, 8);
        }

        /** Registers the handler of a job type; this node must work its queue ({@link #build()} refuses otherwise). */
        public <T> Builder handle(JobType<T> type, JobHandler<T> handler) {
            Objects.requireNonNull(handler, "handler");
            EngineParts.Handled<?> prev = handled.get(type.name());
            if (prev != null && !prev.handler().equals(handler)) {
                throw new IllegalArgumentException("job type " + type.name() + " already has a handler");
            }
            registry.register(type, null); // known now (its payload checked); run once the engine exists
            handled.put(type.name(), new EngineParts.Handled<>(type, handler));
            return this;
        }

        /** Declares a job type this node enqueues but does not run. */
        public Builder declare(JobType<?> type) {
            registry.register(type, null);
            return this;
        }

        /** Works this queue with {@code concurrency} handler threads. */
        public Builder queue(String name, int concurrency) {
            JobType.of("probe", Object.class).withQueue(name); // validates the name
            if (concurrency < 1 || concurrency > 1000) {
                throw new IllegalArgumentException("concurrency must be between 1 and 1000, was " + concurrency);
            }
            queues.put(name, concurrency);
            return this;
        }

        public Builder nodeId(String id) {
            if (id == null || id.isBlank() || id.length() > 200) {
                throw new IllegalArgumentException("node id must be 1-200 characters");
            }
            this.nodeId = id;
            return this;
        }

        /**
         * The version this node runs, as the fleet table shows it ({@link Converge#nodes()}):
         * your service's release, so that a rolling deploy can be followed node by node. By
         * default the engine's own version.
         */
        public Builder nodeVersion(String version) {
            if (version == null || version.isBlank() || version.length() > 200) {
                throw new IllegalArgumentException("node version must be 1-200 characters");
            }
            this.nodeVersion = version;
            return this;
        }

        /** @deprecated use {@code leases(l -> l.duration(d))}; removed in the next release. */
        @Deprecated(forRemoval = true)
        public Builder lease(Duration d) {
            return leases(l -> l.duration(d));
        }

        /** @deprecated use {@code leases(l -> l.heartbeat(d))}; removed in the next release. */
        @Deprecated(forRemoval = true)
        public Builder heartbeat(Duration d) {
            return leases(l -> l.heartbeat(d));
        }

        /** @deprecated use {@code queues(q -> q.poll(d))}; removed in the next release. */
        @Deprecated(forRemoval = true)
        public Builder poll(Duration d) {
            return queues(q -> q.poll(d));
        }

        /** @deprecated use {@code leases(l -> l.rescue(d))}; removed in the next release. */
        @Deprecated(forRemoval = true)
        public Builder rescue(Duration d) {
            return leases(l -> l.rescue(d));
        }

        /** @deprecated use {@code queues(q -> q.fetchLimit(n))}; removed in the next release. */
        @Deprecated(forRemoval = true)
        public Builder fetchLimit(int n) {
            return queues(q -> q.fetchLimit(n));
        }

        /** @deprecated use {@code queues(q -> q.prefetch(n))}; removed in the next release. */
        @Deprecated(forRemoval = true)
        public Builder prefetch(int n) {
            return queues(q -> q.prefetch(n));
        }

        /** @deprecated use {@code queues(q -> q.shutdownGrace(d))}; removed in the next release. */
        @Deprecated(forRemoval = true)
        public Builder shutdownGrace(Duration d) {
            return queues(q -> q.shutdownGrace(d));
        }

        /** @deprecated use {@code queues(q -> q.unhandledGrace(d))}; removed in the next release. */
        @Deprecated(forRemoval = true)
        public Builder unhandledGrace(Duration d) {
            return queues(q -> q.unhandledGrace(d));
        }

        /** What happens at the engine's named crash points (tests and chaos runs only). */
        public Builder crashPlan(CrashPlan plan) {
            this.crashPlan = Objects.requireNonNull(plan);
            return this;
        }

        /** For the engine's own packages: reacts to jobs of batches, chains and flows finishing. */
        Builder finishHook(FinishHook hook) {
            hooks.add(Objects.requireNonNull(hook));
            return this;
        }

        /** @deprecated use {@code queues(q -> q.systemQueue(queue))}; removed in the next release. */
        @Deprecated(forRemoval = true)
        public Builder systemQueue(String queue) {
            return queues(q -> q.systemQueue(queue));
        }

        /** @deprecated use {@code maintenance(m -> m.watchdog(every))}; removed in the next release. */
        @Deprecated(forRemoval = true)
        public Builder watchdog(Duration every) {
            return maintenance(m -> m.watchdog(every));
        }

        /** @deprecated use {@code ledger(l -> l.installation(installation))}; removed in the next release. */
        @Deprecated(forRemoval = true)
        public Builder installation(String installation) {
            return ledger(l -> l.installation(installation));
        }

        /** Registers a kind of external resource the ledger creates, tears down and reaps. */
        public Builder resource(ResourceType type) {
            resources.register(Objects.requireNonNull(type));
            return this;
        }

        /** @deprecated use {@code ledger(l -> l.reaper(every, olderThan))}; removed in the next release. */
        @Deprecated(forRemoval = true)
        public Builder reaper(Duration every, Duration olderThan) {
            return ledger(l -> l.reaper(every, olderThan));
        }

        /** @deprecated use {@code ledger(l -> l.compensationRetry(policy))}; removed in the next release. */
        @Deprecated(forRemoval = true)
        public Builder compensationRetry(RetryPolicy policy) {
            return ledger(l -> l.compensationRetry(policy));
        }

        /** @deprecated use {@code ledger(l -> l.compensationDeadlineAtLeast(d))}; removed in the next release. */
        @Deprecated(forRemoval = true)
        public Builder compensationDeadlineAtLeast(Duration d) {
            return ledger(l -> l.compensationDeadlineAtLeast(d));
        }

        /** Enqueues a job of {@code type} every {@code interval} (slots aligned on the epoch), once per slot across the cluster. */
        public Builder every(JobType<Occurrence> type, Duration interval) {
            return recurring(RecurringJob.of(type, Schedule.every(interval)));
        }

        /** Enqueues a job of {@code type} at each slot of a five-field cron expression read in {@code zone}. */
        public Builder cron(JobType<Occurrence> type, String expression, ZoneId zone) {
            return recurring(RecurringJob.of(type, Schedule.cron(expression, zone)));
        }

        /** Declares a recurring job with its own name, payload or missed-slot policy. */
        public Builder recurring(RecurringJob<?> job) {
            recurring.add(Objects.requireNonNull(job, "job"));
            return this;
        }

        /** @deprecated use {@code maintenance(m -> m.recurringTick(d))}; removed in the next release. */
        @Deprecated(forRemoval = true)
        public Builder recurringTick(Duration d) {
            return maintenance(m -> m.recurringTick(d));
        }

        /** @deprecated use {@code maintenance(m -> m.retention(policy))}; removed in the next release. */
        @Deprecated(forRemoval = true)
        public Builder retention(RetentionPolicy policy) {
            return maintenance(m -> m.retention(policy));
        }

        /** @deprecated use {@code telemetry(t -> t.metrics(registry))}; removed in the next release. */
        @Deprecated(forRemoval = true)
        public Builder metrics(io.micrometer.core.instrument.MeterRegistry registry) {
            return telemetry(t -> t.metrics(registry));
        }

        /** @deprecated use {@code telemetry(t -> t.tracing(openTelemetry))}; removed in the next release. */
        @Deprecated(forRemoval = true)
        public Builder tracing(io.opentelemetry.api.OpenTelemetry openTelemetry) {
            return telemetry(t -> t.tracing(openTelemetry));
        }

        /** @deprecated use {@code telemetry(t -> t.metricsSampling(every))}; removed in the next release. */
        @Deprecated(forRemoval = true)
        public Builder metricsSampling(Duration every) {
            return telemetry(t -> t.metricsSampling(every));
        }

        /** @deprecated use {@code maintenance(m -> m.noRetention())}; removed in the next release. */
        @Deprecated(forRemoval = true)
        public Builder noRetention() {
            return maintenance(m -> m.noRetention());
        }

        /**
         * How this node's workers fetch and drain: {@code .queues(q -> q.poll(Duration.ofMillis(200)).fetchLimit(50))}.
         * The queues themselves and their concurrency are {@link #queue(String, int)}.
         */
        public Builder queues(java.util.function.Consumer<QueueOptions> options) {
            options.accept(new QueueOptions());
            return this;
        }

        /** How deliveries hold their jobs: {@code .leases(l -> l.duration(Duration.ofMinutes(2)))}. */
        public Builder leases(java.util.function.Consumer<LeaseOptions> options) {
            options.accept(new LeaseOptions());
            return this;
        }

        /** The ledger's installation tag, reaper and compensation: {@code .ledger(l -> l.installation("eu-1"))}. */
        public Builder ledger(java.util.function.Consumer<LedgerOptions> options) {
            options.accept(new LedgerOptions());
            return this;
        }

        /**
         * The cluster-wide tasks this node may run (one node at a time holds each):
         * {@code .maintenance(m -> m.watchdog(Duration.ofSeconds(5)).retention(policy))}.
         */
        public Builder maintenance(java.util.function.Consumer<MaintenanceOptions> options) {
            options.accept(new MaintenanceOptions());
            return this;
        }

        /** Meters and traces: {@code .telemetry(t -> t.metrics(registry).tracing(openTelemetry))}. */
        public Builder telemetry(java.util.function.Consumer<TelemetryOptions> options) {
            options.accept(new TelemetryOptions());
            return this;
        }

        /** Options of {@link #queues}: how workers fetch, and how they drain at shutdown. */
        public final class QueueOptions {
            private QueueOptions() {
            }

            /** How long an idle fetcher waits when no wake-up comes (default 1s). */
            public QueueOptions poll(Duration d) {
                if (d == null || d.toMillis() < 1) {
                    throw new IllegalArgumentException("poll must be at least 1ms");
                }
                poll = d;
                return this;
            }

            /** The most jobs one fetch leases (default 100). */
            public QueueOptions fetchLimit(int n) {
                if (n < 1 || n > 10_000) {
                    throw new IllegalArgumentException("fetch limit must be between 1 and 10000, was " + n);
                }
                fetchLimit = n;
                return this;
            }

            /**
             * Jobs leased ahead of free handler threads, per queue. Default: adaptive, as many as the
             * queue's handlers ran in the last 100 ms, at most ten fetches' worth ({@link #fetchLimit}):
             * slow jobs are not hoarded (a node whose handlers are busy leaves them to a node with a free
             * one), fast ones do not starve between fetches.
             */
            public QueueOptions prefetch(int n) {
                if (n < 0 || n > 10_000) {
                    throw new IllegalArgumentException("prefetch must be between 0 and 10000, was " + n);
                }
                prefetch = n;
                return this;
            }

            /**
             * Where the queues' handler threads come from (default: platform daemon threads named
             * {@code converge-<queue>-<n>}); each queue still runs at most its concurrency's handlers at once.
             * On JDK 21 and later, {@code Thread.ofVirtual().name("handler-", 0).factory()} runs each handler on
             * a virtual thread, so a queue whose steps mostly wait on other services may be given hundreds of
             * handlers without a platform thread each (from JDK 24 on, a handler waiting inside a
             * {@code synchronized} block no longer holds its carrier thread). Their database work still
             * waits for the store's pool, which bounds how many talk to the database at once.
             */
            public QueueOptions handlerThreads(java.util.concurrent.ThreadFactory factory) {
                handlerThreads = Objects.requireNonNull(factory, "handler thread factory");
                return this;
            }

            /** How long {@link Converge#close()} lets running handlers finish before it interrupts them (default 10s). */
            public QueueOptions shutdownGrace(Duration d) {
                if (d == null || d.isNegative()) {
                    throw new IllegalArgumentException("shutdown grace must not be negative");
                }
                shutdownGrace = d;
                return this;
            }

            /**
             * How long a due job whose type no node handles waits before it fails (default 1 hour).
             * A node leases only the job types it has handlers for, so during a rolling deploy the
             * jobs of a type only the new version knows wait for a node of that version instead of
             * failing on an old one. A type that no node ever handles (a retired type, a typo) fails
             * after this grace, with "no handler for job type ..."; meanwhile each node that sees it
             * logs a WARN once.
             */
            public QueueOptions unhandledGrace(Duration d) {
                if (d == null || d.isNegative()) {
                    throw new IllegalArgumentException("unhandled grace must not be negative");
                }
                unhandledGrace = d;
                return this;
            }

            /** The queue the engine's own jobs (flow compensation) run on (default "default"). */
            public QueueOptions systemQueue(String queue) {
                JobType.of("probe", Object.class).withQueue(queue);
                systemQueue = queue;
                return this;
            }
        }

        /** Options of {@link #leases}: how long a delivery holds its job, and how it keeps it. */
        public final class LeaseOptions {
            private LeaseOptions() {
            }

            /** How long a delivery holds its job without a heartbeat (default 30s, at least 100ms). */
            public LeaseOptions duration(Duration d) {
                if (d == null || d.toMillis() < 100) {
                    throw new IllegalArgumentException("lease must be at least 100ms");
                }
                lease = d;
                return this;
            }

            /** How often held leases are extended (default a third of the lease). */
            public LeaseOptions heartbeat(Duration d) {
                if (d == null || d.toMillis() < 1) {
                    throw new IllegalArgumentException("heartbeat must be at least 1ms");
                }
                heartbeat = d;
                return this;
            }

            /**
             * How often expired leases are looked for (default a sixth of the lease, at least 100ms); the first
             * look is made as the node starts.
             */
            public LeaseOptions rescue(Duration d) {
                if (d == null || d.toMillis() < 1) {
                    throw new IllegalArgumentException("rescue must be at least 1ms");
                }
                rescue = d;
                return this;
            }
        }

        /** Options of {@link #ledger}: whose resources these are, and how failed flows are undone. */
        public final class LedgerOptions {
            private LedgerOptions() {
            }

            /**
             * The installation this engine's resources are tagged with ({@code converge:<installation>:<subject>};
             * {@code "default"} unless set). Engines sharing a leaf account must each have their own:
             * the ledger adopts, resolves and tears down by lookup only resources with its own
             * installation's tag. Letters, digits, {@code . _ -}, at most 64.
             */
            public LedgerOptions installation(String installation) {
                tags = dev.converge.ledger.ResourceTags.of(installation);
                return this;
            }

            /**
             * Runs the ledger reaper on this node: every {@code every}, the one node holding the
             * reaper claim schedules the resolution (by lookup at the leaf) of entries left claimed or
             * uncertain for longer than {@code olderThan} by jobs that ended.
             */
            public LedgerOptions reaper(Duration every, Duration olderThan) {
                if (every == null || every.toMillis() < 10 || olderThan == null || olderThan.isNegative()) {
                    throw new IllegalArgumentException("reaper interval must be at least 10ms and its bound not negative");
                }
                reaper = every;
                reapOlderThan = olderThan;
                return this;
            }

            /** How each compensation of a failed flow is retried before it gives up (default 8 attempts, 1s..1min). */
            public LedgerOptions compensationRetry(RetryPolicy policy) {
                compensationRetry = Objects.requireNonNull(policy, "policy");
                return this;
            }

            /**
             * How long a failed flow with a deadline may compensate before the watchdog ends it
             * {@code needs_attention}: as long again as its deadline allowed, but at least this
             * (default 5 minutes), so that a short deadline leaves compensation time to run.
             */
            public LedgerOptions compensationDeadlineAtLeast(Duration d) {
                if (d == null || d.isNegative() || d.isZero()) {
                    throw new IllegalArgumentException("the compensation deadline must be positive");
                }
                compensationAtLeast = d;
                return this;
            }
        }

        /** Options of {@link #maintenance}: the watchdog, retention and the recurring jobs' tick. */
        public final class MaintenanceOptions {
            private MaintenanceOptions() {
            }

            /**
             * Runs the watchdog on this node: every {@code every}, the one node holding the watchdog
             * claim fails flows past their deadline through the terminal-failure path (default: off).
             */
            public MaintenanceOptions watchdog(Duration every) {
                if (every == null || every.toMillis() < 10) {
                    throw new IllegalArgumentException("watchdog interval must be at least 10ms");
                }
                watchdog = every;
                return this;
            }

            /**
             * How long finished jobs, batches, chains and flows are kept (default {@link RetentionPolicy#defaults()}:
             * succeeded and cancelled 24 hours, failed 7 days, flows 30 days, deleted 500 rows at a time every minute
             * by the one node holding the retention claim). Ledger entries are never deleted.
             */
            public MaintenanceOptions retention(RetentionPolicy policy) {
                retention = Objects.requireNonNull(policy, "policy");
                return this;
            }

            /** Keeps every finished row forever (no retention task runs on this node). */
            public MaintenanceOptions noRetention() {
                retention = null;
                return this;
            }

            /** How often the node holding the recurring claim decides due slots (default 1s). */
            public MaintenanceOptions recurringTick(Duration d) {
                if (d == null || d.toMillis() < 10) {
                    throw new IllegalArgumentException("recurring tick must be at least 10ms");
                }
                recurringTick = d;
                return this;
            }
        }

        /** Options of {@link #telemetry}: meters and traces (both off unless set). */
        public final class TelemetryOptions {
            private TelemetryOptions() {
            }

            /**
             * Registers the engine's meters in this Micrometer registry (docs/operations.md lists them);
             * the gauges of rows by state are sampled from the store every 15 seconds.
             */
            public TelemetryOptions metrics(io.micrometer.core.instrument.MeterRegistry registry) {
                meterRegistry = Objects.requireNonNull(registry, "registry");
                return this;
            }

            /**
             * Traces each delivery with this OpenTelemetry: a span around the handler, whose parent is the
             * context the job was enqueued in (carried in the job's row as a W3C traceparent).
             */
            public TelemetryOptions tracing(io.opentelemetry.api.OpenTelemetry openTelemetry) {
                Builder.this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
                return this;
            }

            /** How often the gauges of rows by state are read from the store (default 15s; null: only on demand). */
            public TelemetryOptions metricsSampling(Duration every) {
                if (every != null && every.toMillis() < 10) {
                    throw new IllegalArgumentException("metrics sampling must be at least 10ms");
                }
                metricsSample = every;
                return this;
            }
        }

        public Converge build() {
            dev.converge.recurring.internal.RecurringJobsService.checkNames(recurring);
            for (RecurringJob<?> r : recurring) {
                if (!registry.knows(r.type().name())) {
                    throw new IllegalArgumentException("recurring job '" + r.name() + "' has job type '" + r.type().name()
                            + "' that this engine neither handles nor declares");
                }
            }
            if (lease == null || lease.toMillis() < 100) {
                throw new IllegalArgumentException("lease must be at least 100ms");
            }
            if (heartbeat == null) {
                heartbeat = lease.dividedBy(3);
            }
            if (rescue == null) {
                rescue = lease.dividedBy(6).compareTo(Duration.ofMillis(100)) < 0 ? Duration.ofMillis(100) : lease.dividedBy(6);
            }
            for (EngineParts.Handled<?> h : handled.values()) {
                JobType<?> type = h.type();
                if (queues.containsKey(type.queue())) {
                    continue;
                }
                String fix = "add .queue(\"" + type.queue() + "\", n), or .declare(type) instead of .handle(...) on a node that only enqueues it";
                if (queues.isEmpty()) {
                    // a handler on a node that works no queue at all would wait forever without a word
                    throw new IllegalStateException("job type '" + type.name() + "' runs on queue '" + type.queue()
                            + "', which this node does not work: " + fix);
                }
                // jobs routed with Job.queue(...) to a queue worked here still run; the type's own queue does not
                log.warn("job type '{}' runs on queue '{}' by default, which this node does not work; "
                        + "only jobs routed to {} run here: {}", type.name(), type.queue(), queues.keySet(), fix);
            }
            return new Converge(this);
        }
    }
}
