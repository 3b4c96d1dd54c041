package dev.converge.proof.bench;

import dev.converge.Converge;
import dev.converge.queue.Job;
import dev.converge.store.Store;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * {@code converge bench queue}: the engine's enqueue, processing and pickup figures beside
 * hand-written references measured in the same run on the same database, as a user gets them:
 * the builder's defaults unless told otherwise, and no maintenance a user would not do.
 *
 * <p>The first round runs on a cold JVM and is reported on its own (the reference goes first in
 * it: it runs little besides the JDBC driver, whose warm-up would otherwise be charged to the
 * engine); the warm rounds that follow are reported as medians. In every round the engine and the references do the same work on the
 * same freshly filled table (TRUNCATE, then one bulk enqueue), taking turns so that a slow patch
 * of a shared machine hits both; {@code --vacuum} adds VACUUM ANALYZE before every processing
 * run, the engine's and the reference's alike.
 */
public final class QueueBench {
    private static final String SINGLE_QUEUE = "bench-single";
    private final QueueBenchOptions o;
    private final Consumer<String> progress;

    public QueueBench(QueueBenchOptions options, Consumer<String> progress) {
        this.o = options;
        this.progress = progress;
    }

    public QueueBenchResult run() throws Exception {
        try (BenchDatabase db = BenchDatabase.create(o);
                Store store = Store.open(db.config().maxPoolSize(Math.max(10, o.workers() + 2)).poolName("bench").build());
                Converge producer = Converge.builder(store).declare(NoopJob.TYPE).declare(PickupProbe.TYPE)
                        .nodeId("bench-producer").build()) {
            int rounds = o.rounds() + 1; // round 0 is the cold one
            QueueBenchResult.Figure bulk = new QueueBenchResult.Figure(o.rounds());
            QueueBenchResult.Figure single = new QueueBenchResult.Figure(o.rounds());
            QueueBenchResult.Figure process = new QueueBenchResult.Figure(o.rounds());
            int singleJobs = Math.min(o.jobs(), 4000);
            for (int r = 0; r < rounds; r++) {
                String round = r == 0 ? "cold round: " : "warm round " + r + "/" + o.rounds() + ": ";
                // the reference goes first in the cold round, so that the JDBC driver's own warm-up (all
                // the reference runs) is not counted against the engine; then they alternate
                boolean engineFirst = r % 2 == 1;
                for (int turn = 0; turn < 2 && o.runs("bulk"); turn++) {
                    boolean engine = (turn == 0) == engineFirst;
                    progress.accept(round + (engine ? "engine" : "reference") + ": bulk enqueue of " + o.jobs() + " jobs");
                    truncate(db);
                    bulk.put(r, engine, engine ? timedBulk(producer)
                            : EnqueueReference.bulk(db, NoopJob.QUEUE, NoopJob.TYPE.name(), o.jobs()));
                }
                for (int turn = 0; turn < 2 && o.runs("process"); turn++) {
                    boolean engine = (turn == 0) == engineFirst;
                    progress.accept(round + (engine ? "engine" : "reference") + ": processing " + o.jobs() + " jobs with "
                            + o.workers() + " threads");
                    fill(db, producer, o.jobs());
                    process.put(r, engine, engine ? process(store, o.jobs())
                            : ReferenceLoop.run(db, NoopJob.QUEUE, o.workers(), o.jobs()));
                }
                for (int turn = 0; turn < 2 && o.runs("single"); turn++) {
                    boolean engine = (turn == 0) == engineFirst;
                    progress.accept(round + (engine ? "engine" : "reference") + ": " + singleJobs
                            + " jobs, one per transaction, from " + o.workers() + " threads");
                    truncate(db);
                    single.put(r, engine, engine ? timedSingle(producer, singleJobs)
                            : EnqueueReference.oneAtATime(db, SINGLE_QUEUE, NoopJob.TYPE.name(), o.workers(), singleJobs));
                }
            }
            truncate(db);

            double[] pickup = o.runs("pickup") ? pickup(store, producer, false) : null;
            double[] pickupTx = o.runs("pickup") && store.database().equals("postgresql") ? pickup(store, producer, true) : null;
            return new QueueBenchResult(o.store(), o.jobs(), o.workers(), singleJobs, bulk, single, process,
                    pickup == null ? Double.NaN : PickupLatency.percentile(pickup, 50),
                    pickup == null ? Double.NaN : PickupLatency.percentile(pickup, 99),
                    pickupTx == null ? Double.NaN : PickupLatency.percentile(pickupTx, 50),
                    pickupTx == null ? Double.NaN : PickupLatency.percentile(pickupTx, 99),
                    EngineShape.describe(o));
        }
    }

    /** Enqueue-to-handler-start on an idle queue; {@code inCallerTx}: enqueued inside a transaction the caller commits. */
    private double[] pickup(Store store, Converge producer, boolean inCallerTx) throws Exception {
        progress.accept("pickup latency" + (inCallerTx ? ", enqueued in the caller's transaction, " : ", ")
                + o.samples() + " samples");
        try (Converge engine = EngineShape.worker(store, o)
                .handle(PickupProbe.TYPE, (p, ctx) -> PickupLatency.STARTS.put(System.nanoTime()))
                .queue("bench-pickup", 1).build()) {
            engine.start();
            // PostgreSQL: another engine enqueues, so only LISTEN/NOTIFY can wake the worker quickly
            Converge enqueuer = store.database().equals("postgresql") ? producer : engine;
            if (!inCallerTx) {
                return PickupLatency.measure(i -> enqueuer.enqueue(Job.of(PickupProbe.TYPE, new PickupProbe(i))),
                        o.samples());
            }
            return PickupLatency.measure(i -> {
                try (Connection c = enqueuer.store().dataSource().getConnection()) {
                    c.setAutoCommit(false);
                    enqueuer.enqueue(c, Job.of(PickupProbe.TYPE, new PickupProbe(i)));
                    c.commit();
                }
            }, o.samples());
        }
    }

    private double timedBulk(Converge producer) {
        List<Job<NoopJob>> jobs = jobs(o.jobs());
        long start = System.nanoTime();
        producer.enqueueAll(jobs);
        return o.jobs() * 1e9 / (System.nanoTime() - start);
    }

    private double timedSingle(Converge producer, int n) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(o.workers());
        AtomicInteger next = new AtomicInteger();
        try {
            List<Future<?>> done = new ArrayList<>();
            long start = System.nanoTime();
            for (int t = 0; t < o.workers(); t++) {
                done.add(pool.submit(() -> {
                    int i;
                    while ((i = next.getAndIncrement()) < n) {
                        producer.enqueue(Job.of(NoopJob.TYPE, new NoopJob(i)).queue(SINGLE_QUEUE));
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            return n * 1e9 / (System.nanoTime() - start);
        } finally {
            pool.shutdownNow();
        }
    }

    /** Starts a working engine over the filled queue; jobs per second from start until all are durably done. */
    private double process(Store store, int expected) throws InterruptedException {
        try (Converge engine = EngineShape.worker(store, o).build()) {
            long start = System.nanoTime();
            engine.start();
            while (engine.stats().succeeded() < expected) {
                Thread.sleep(1);
            }
            return expected * 1e9 / (System.nanoTime() - start);
        }
    }

    private void fill(BenchDatabase db, Converge producer, int n) throws Exception {
        truncate(db);
        history(db);
        producer.enqueueAll(jobs(n));
        if (o.vacuum() && db.postgres()) {
            try (Connection c = db.connect(); Statement st = c.createStatement()) {
                st.execute("VACUUM ANALYZE cv_job");
            }
        }
    }

    /**
     * {@code --finished-rows}: the succeeded jobs a long-running installation keeps (within its
     * retention age) sit in the table beside the due ones, for the engine's run and the reference's alike.
     */
    private void history(BenchDatabase db) throws Exception {
        if (o.finishedRows() == 0) {
            return;
        }
        String rows = db.postgres() ? "generate_series(1, " + o.finishedRows() + ") AS g(x)"
                : "SYSTEM_RANGE(1, " + o.finishedRows() + ")";
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            st.execute("INSERT INTO cv_job (queue, kind, payload, state, run_at, attempt, max_attempts, epoch, created_at, "
                    + "started_at, finished_at) SELECT '" + NoopJob.QUEUE + "', '" + NoopJob.TYPE.name() + "', '{\"n\":0}', "
                    + "'succeeded', CURRENT_TIMESTAMP, 1, 1, 1, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP FROM " + rows);
        }
    }

    private static List<Job<NoopJob>> jobs(int n) {
        List<Job<NoopJob>> jobs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            jobs.add(Job.of(NoopJob.TYPE, new NoopJob(i)));
        }
        return jobs;
    }

    private static void truncate(BenchDatabase db) throws Exception {
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            BenchDatabase.truncateJobs(c, st);
        }
    }
}
