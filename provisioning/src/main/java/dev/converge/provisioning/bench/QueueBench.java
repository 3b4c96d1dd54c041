package dev.converge.provisioning.bench;

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
 * {@code converge bench queue}: the engine's enqueue, processing and pickup figures beside a
 * hand-written SKIP LOCKED loop measured in the same run on the same database. Both the engine
 * and the reference get the same warm-up rounds first, then take turns over the measured rounds;
 * each processing run starts on a freshly filled and vacuumed table, so neither inherits the
 * other's dead rows.
 */
public final class QueueBench {
    private static final int WARM_ROUNDS = 3;
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
            // the engine has far more code on its hot path than the reference loop for the JIT to
            // compile: both run the full job count until their figures settle, and only then are measured
            for (int round = 1; round <= WARM_ROUNDS; round++) {
                progress.accept("warm-up " + round + "/" + WARM_ROUNDS + ": engine and reference on " + o.jobs() + " jobs");
                fill(db, producer, o.jobs());
                process(store, o.jobs());
                fill(db, producer, o.jobs());
                ReferenceLoop.run(db, NoopJob.QUEUE, o.workers(), o.jobs());
                producer.enqueueAll(jobs(Math.min(o.jobs(), 5000))); // and the bulk path
            }

            // engine and reference take turns, round after round, so a slow patch of a shared machine
            // (a checkpoint, a neighbour) hits both; the medians are the figures, every round is shown
            double[] bulk = new double[o.rounds()];
            double[] process = new double[o.rounds()];
            double[] reference = new double[o.rounds()];
            for (int r = 0; r < o.rounds(); r++) {
                String round = "round " + (r + 1) + "/" + o.rounds() + ": ";
                progress.accept(round + "bulk enqueue of " + o.jobs() + " jobs");
                truncate(db);
                bulk[r] = timedBulk(producer);
                vacuum(db);
                progress.accept(round + "processing " + o.jobs() + " jobs with " + o.workers() + " workers");
                process[r] = process(store, o.jobs());
                progress.accept(round + "reference loop on " + o.jobs() + " jobs");
                fill(db, producer, o.jobs());
                reference[r] = ReferenceLoop.run(db, NoopJob.QUEUE, o.workers(), o.jobs());
            }

            progress.accept("enqueue one job per transaction, " + o.jobs() + " jobs");
            truncate(db);
            double single = timedSingle(producer);
            truncate(db);

            progress.accept("pickup latency, " + o.samples() + " samples");
            double[] pickup = pickup(store, producer);
            return new QueueBenchResult(o.store(), o.jobs(), o.workers(), bulk, single, process,
                    PickupLatency.percentile(pickup, 50), PickupLatency.percentile(pickup, 99), reference,
                    EngineShape.describe(o));
        }
    }

    private double timedBulk(Converge producer) {
        List<Job<NoopJob>> jobs = jobs(o.jobs());
        long start = System.nanoTime();
        producer.enqueueAll(jobs);
        return o.jobs() * 1e9 / (System.nanoTime() - start);
    }

    private double timedSingle(Converge producer) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(o.workers());
        AtomicInteger next = new AtomicInteger();
        try {
            List<Future<?>> done = new ArrayList<>();
            long start = System.nanoTime();
            for (int t = 0; t < o.workers(); t++) {
                done.add(pool.submit(() -> {
                    int i;
                    while ((i = next.getAndIncrement()) < o.jobs()) {
                        producer.enqueue(Job.of(NoopJob.TYPE, new NoopJob(i)).queue("bench-single"));
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            return o.jobs() * 1e9 / (System.nanoTime() - start);
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

    private double[] pickup(Store store, Converge producer) throws InterruptedException {
        try (Converge engine = EngineShape.worker(store, o)
                .handle(PickupProbe.TYPE, (p, ctx) -> PickupLatency.STARTS.put(System.nanoTime()))
                .queue("bench-pickup", 1).build()) {
            engine.start();
            // PostgreSQL: another engine enqueues, so only LISTEN/NOTIFY can wake the worker quickly
            return PickupLatency.measure(store.dialect().supportsListen() ? producer : engine, o.samples());
        }
    }

    private void fill(BenchDatabase db, Converge producer, int n) throws Exception {
        truncate(db);
        producer.enqueueAll(jobs(n));
        vacuum(db);
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
            st.execute("TRUNCATE TABLE cv_job");
        }
    }

    private static void vacuum(BenchDatabase db) throws Exception {
        if (db.postgres()) {
            try (Connection c = db.connect(); Statement st = c.createStatement()) {
                st.execute("VACUUM ANALYZE cv_job");
            }
        }
    }
}
