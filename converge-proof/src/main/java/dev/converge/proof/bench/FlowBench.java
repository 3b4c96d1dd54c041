package dev.converge.proof.bench;

import dev.converge.Converge;
import dev.converge.batch.Batch;
import dev.converge.flow.Flow;
import dev.converge.flow.FlowState;
import dev.converge.ledger.ResourceType;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.store.Store;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * {@code converge bench flow}: what the guarantee costs. Provisioning-shaped flows (a batch of three
 * steps, then a chain of two more) run once with every step creating its resource through the
 * ledger's {@code ensure()} and the last one also spending a single-use token, and once as the same
 * flow of plain jobs that call the same leaves directly. The leaves are in this process and
 * answer at once, so the figures are the engine's own cost: the ledger's claim, confirm and
 * compensation bookkeeping, and the token's checkout and spend.
 *
 * <p>Each run gets a database of its own (created and migrated before the clock starts); all flows
 * are started before the engine starts working, and the clock runs from the engine's start until
 * every flow has succeeded. The first round runs on a cold JVM and is reported on its own (the
 * unguarded flow goes first in it); in the warm rounds the two take turns.
 */
public final class FlowBench {
    /** Steps per flow: the batch's three and the chain's two. */
    static final int STEPS = 5;
    private static final String QUEUE = "bench-flow";
    private static final String POOL = "bench.seats";
    private static final String[] NAMES = {"a", "b", "c", "d", "e"};

    /** A step's payload: which flow it belongs to. */
    record StepRef(int flow) {
    }

    private final FlowBenchOptions o;
    private final Consumer<String> progress;

    public FlowBench(FlowBenchOptions options, Consumer<String> progress) {
        this.o = options;
        this.progress = progress;
    }

    public FlowBenchResult run() throws Exception {
        QueueBenchResult.Figure flows = new QueueBenchResult.Figure(o.rounds());
        List<String> checks = new ArrayList<>();
        double[] commits = {Double.NaN, Double.NaN};
        FlowBenchResult.Cpu[] cpu = new FlowBenchResult.Cpu[2];
        for (int r = 0; r <= o.rounds(); r++) {
            boolean guardedFirst = r % 2 == 1;
            for (int turn = 0; turn < 2; turn++) {
                boolean guarded = (turn == 0) == guardedFirst;
                String round = r == 0 ? "cold round: " : "warm round " + r + "/" + o.rounds() + ": ";
                progress.accept(round + (guarded ? "ledger-guarded" : "plain") + " flows: " + o.flows() + " with "
                        + o.workers() + " threads");
                Run run = measure(guarded);
                flows.put(r, guarded, run.flowsPerSecond);
                commits[guarded ? 0 : 1] = run.commitsPerFlow;
                cpu[guarded ? 0 : 1] = run.cpu;
                if (guarded) {
                    checks.add(run.check);
                }
            }
        }
        return new FlowBenchResult(o.store(), o.flows(), o.workers(), flows, commits[0], commits[1], cpu[0], cpu[1],
                checks.get(checks.size() - 1));
    }

    private record Run(double flowsPerSecond, String check, double commitsPerFlow, FlowBenchResult.Cpu cpu) {
    }

    private Run measure(boolean guarded) throws Exception {
        BenchLeaf[] leaves = new BenchLeaf[NAMES.length];
        ResourceType[] types = new ResourceType[NAMES.length];
        for (int i = 0; i < NAMES.length; i++) {
            leaves[i] = new BenchLeaf("bench." + NAMES[i]);
            types[i] = leaves[i].type();
        }
        BenchLeaf seats = new BenchLeaf("bench.seat");
        Map<String, String> seatOf = new HashMap<>();
        AtomicInteger lastStepsDone = new AtomicInteger();
        try (BenchDatabase db = BenchDatabase.create(o.postgres(), o.dbUrl(), o.user())) {
            double fps;
            FlowBenchResult.Cpu cpu;
            long before;
            int polls;
            try (Store store = Store.open(db.config().maxPoolSize(Math.max(10, o.workers() + 2)).poolName("bench-flow")
                    .build())) {
                Converge.Builder b = Converge.builder(store).nodeId("bench-flow").queue(QUEUE, o.workers());
                if (guarded) {
                    for (ResourceType type : types) {
                        b.resource(type); // teardown and the reaper find a type here by its kind
                    }
                }
                List<JobType<StepRef>> steps = new ArrayList<>();
                for (int i = 0; i < NAMES.length; i++) {
                    JobType<StepRef> type = JobType.of("bench.flow." + (guarded ? "guarded." : "plain.") + NAMES[i],
                            StepRef.class).withQueue(QUEUE);
                    steps.add(type);
                    int step = i;
                    boolean last = i == NAMES.length - 1;
                    if (guarded) {
                        b.handle(type, (ref, ctx) -> {
                            String subject = subject(ref.flow());
                            ctx.ledger().ensure(types[step], subject, Map.of());
                            if (last) {
                                ctx.tokens().useOnce(POOL, subject, seats.activation());
                                lastStepsDone.incrementAndGet();
                            }
                        });
                    } else {
                        b.handle(type, (ref, ctx) -> {
                            String subject = subject(ref.flow());
                            leaves[step].createDirectly(subject);
                            if (last) {
                                seats.activate(seatOf.get(subject));
                                lastStepsDone.incrementAndGet();
                            }
                        });
                    }
                }
                try (Converge engine = b.build()) {
                    for (int f = 0; f < o.flows(); f++) {
                        seatOf.put(subject(f), "seat-" + f);
                    }
                    startAll(engine, steps, guarded, seatOf);
                    before = db.postgres() ? commits(db) : 0;
                    BackendActivity backends = db.postgres() ? new BackendActivity(o.dbUrl(), o.user(), db.name(), null) : null;
                    if (backends != null) {
                        backends.start();
                    }
                    long cpuBefore = jvmCpuNanos();
                    long start = System.nanoTime();
                    try {
                        engine.start();
                        polls = awaitSucceeded(db, lastStepsDone);
                        fps = o.flows() * 1e9 / (System.nanoTime() - start);
                        long stepsRun = (long) o.flows() * STEPS;
                        cpu = new FlowBenchResult.Cpu((jvmCpuNanos() - cpuBefore) / 1e3 / stepsRun,
                                backends == null ? Double.NaN : backends.backendCpuNanos() / 1e3 / stepsRun);
                    } finally {
                        if (backends != null) {
                            backends.stop();
                        }
                    }
                }
            }
            String check = verify(leaves, seats);
            double commitsPerFlow = Double.NaN;
            if (db.postgres()) {
                // the engine's connections are closed: their backends report their counts as they exit
                Thread.sleep(1500);
                // the count read before, and every poll of the flows' states, committed a transaction of its own
                commitsPerFlow = (commits(db) - before - 1 - polls) / (double) o.flows();
            }
            return new Run(fps, check, commitsPerFlow, cpu);
        }
    }

    /** CPU time of this whole JVM so far (every thread: the engine's, the driver's, the compiler's, the collector's). */
    private static long jvmCpuNanos() {
        return ProcessHandle.current().info().totalCpuDuration().map(java.time.Duration::toNanos).orElse(0L);
    }

    /** Transactions committed in this run's database so far, as PostgreSQL's statistics count them. */
    private static long commits(BenchDatabase db) throws Exception {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Starts every flow (and, guarded, adds its token) before the engine works, from several threads. */
    private void startAll(Converge engine, List<JobType<StepRef>> steps, boolean guarded, Map<String, String> seatOf)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(8, o.workers()));
        AtomicInteger next = new AtomicInteger();
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < Math.min(8, o.workers()); t++) {
                done.add(pool.submit(() -> {
                    int f;
                    while ((f = next.getAndIncrement()) < o.flows()) {
                        String subject = subject(f);
                        if (guarded) {
                            engine.tokens().add(POOL, seatOf.get(subject), subject);
                        }
                        StepRef ref = new StepRef(f);
                        engine.flows().start(Flow.of("bench", subject)
                                .then(Batch.named("prepare").add(Job.of(steps.get(0), ref)).add(Job.of(steps.get(1), ref))
                                        .add(Job.of(steps.get(2), ref)))
                                .then(Job.of(steps.get(3), ref))
                                .then(Job.of(steps.get(4), ref)));
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Waits until every flow succeeded; returns how many times it asked the database. It asks only once the
     * last step of every flow has run (counted in this JVM, at no cost to the machine): a count of the flows'
     * states reads the whole table, and asked every few milliseconds through the run it took a share of the
     * CPU from the run measured, the larger the longer the run.
     */
    private int awaitSucceeded(BenchDatabase db, AtomicInteger lastStepsDone) throws Exception {
        int polls = 0;
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("SELECT state, COUNT(*) FROM cv_flow GROUP BY state")) {
            long nextLook = System.nanoTime();
            while (true) {
                boolean lastStepsRan = lastStepsDone.get() >= o.flows();
                if (!lastStepsRan && System.nanoTime() < nextLook) {
                    Thread.sleep(1);
                    continue;
                }
                // once a second until the last steps ran (a flow that failed would never get there), then often
                nextLook = System.nanoTime() + 1_000_000_000L;
                long succeeded = 0;
                long ended = 0;
                polls++;
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        String state = rs.getString(1);
                        if (state.equals(FlowState.SUCCEEDED.sql())) {
                            succeeded = rs.getLong(2);
                        } else if (!state.equals(FlowState.RUNNING.sql())) {
                            ended += rs.getLong(2);
                        }
                    }
                }
                if (ended > 0) {
                    throw new IllegalStateException(ended + " bench flows did not succeed: the run is void");
                }
                if (succeeded == o.flows()) {
                    return polls;
                }
                if (lastStepsRan) {
                    Thread.sleep(5);
                }
            }
        }
    }

    /** Every leaf holds one resource per flow, made by one create, and every seat was used once. */
    private String verify(BenchLeaf[] leaves, BenchLeaf seats) {
        long held = 0;
        long creates = 0;
        for (BenchLeaf leaf : leaves) {
            if (leaf.held() != o.flows() || leaf.creates() != o.flows()) {
                throw new IllegalStateException(leaf.held() + " resources held and " + leaf.creates() + " created at one leaf for "
                        + o.flows() + " flows: the run is void");
            }
            held += leaf.held();
            creates += leaf.creates();
        }
        if (seats.tokenUses() != o.flows()) {
            throw new IllegalStateException(seats.tokenUses() + " token uses for " + o.flows() + " flows: the run is void");
        }
        return held + " resources held, " + creates + " creates, " + seats.tokenUses() + " single-use tokens spent, "
                + "for " + o.flows() + " flows";
    }

    private static String subject(int flow) {
        return "bench-" + flow;
    }
}
