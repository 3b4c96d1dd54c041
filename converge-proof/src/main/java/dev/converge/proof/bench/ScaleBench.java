package dev.converge.proof.bench;

import dev.converge.Converge;
import dev.converge.proof.chaos.ChildJvm;
import dev.converge.queue.Job;
import dev.converge.store.Store;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * {@code converge bench scale}: processing by 1, 2, 4... separate worker processes on one PostgreSQL
 * database, each count of processes beside the reference loop run the same way in as many processes.
 *
 * <p>For every run, the engine's and the reference's alike: TRUNCATE and one bulk enqueue of the no-op
 * jobs; N cold child JVMs started (JVM defaults, as a user runs them), each with the engine on the builder's
 * defaults and its default pool, or with the reference loop, and W handler (or loop) threads; once every child
 * is ready and a second has passed (so that the database's statistics hold their start-up), all are released
 * at once and the clock runs until no job is due or leased (polled from here). Then the children are told to
 * finish and exit, and the run's commits are read from {@code pg_stat_database} (this process's polls taken
 * out) and every job is checked done once. The peak number of the children's connections to the database is
 * sampled from {@code pg_stat_activity} while they run.
 */
public final class ScaleBench {
    private static final String CHILD_APP = "cv-scale-child";
    private static final String POLL_APP = "cv-scale-poll";
    private static final long READY_TIMEOUT_MS = 120_000;
    private static final long RUN_TIMEOUT_MS = 30 * 60_000;

    /**
     * What one {@code bench scale} run measures on.
     *
     * @param dbUrl     a JDBC URL of the PostgreSQL server to create the scratch database on
     * @param user      PostgreSQL user
     * @param jobs      jobs per measured run
     * @param processes the counts of child processes to measure, in order
     * @param workers   handler threads of each child's engine, and threads of each child's reference loop
     * @param rounds    times every count of processes is measured, the engine going first in odd rounds
     * @param vacuum    VACUUM ANALYZE after every fill, for the engine and the reference alike
     */
    public record Options(String dbUrl, String user, int jobs, List<Integer> processes, int workers, int rounds,
            boolean vacuum) {
        public Options {
            if (jobs < 100 || jobs > 10_000_000) {
                throw new IllegalArgumentException("--jobs must be between 100 and 10000000, was " + jobs);
            }
            if (processes.isEmpty() || processes.stream().anyMatch(n -> n < 1 || n > 64)) {
                throw new IllegalArgumentException("--processes takes counts between 1 and 64, was " + processes);
            }
            if (workers < 1 || workers > 1000) {
                throw new IllegalArgumentException("--workers must be between 1 and 1000, was " + workers);
            }
            if (rounds < 1 || rounds > 20) {
                throw new IllegalArgumentException("--rounds must be between 1 and 20, was " + rounds);
            }
            processes = List.copyOf(processes);
        }
    }

    private final Options o;
    private final Consumer<String> progress;

    public ScaleBench(Options options, Consumer<String> progress) {
        this.o = options;
        this.progress = progress;
    }

    public ScaleBenchResult run() throws Exception {
        try (BenchDatabase db = BenchDatabase.create(true, o.dbUrl(), o.user());
                BenchChildren children = new BenchChildren("scale", progress);
                Store store = Store.open(db.config().poolName("bench").build());
                Converge producer = Converge.builder(store).declare(NoopJob.TYPE).nodeId("bench-producer").build()) {
            String dbName;
            try (Connection c = db.connect(); Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SELECT current_database()")) {
                rs.next();
                dbName = rs.getString(1);
            }
            List<ScaleBenchResult.Run> runs = new ArrayList<>();
            for (int r = 1; r <= o.rounds(); r++) {
                for (int n : o.processes()) {
                    boolean engineFirst = r % 2 == 1;
                    for (int turn = 0; turn < 2; turn++) {
                        boolean engine = (turn == 0) == engineFirst;
                        runs.add(measure(db, dbName, producer, children, r, n, engine));
                    }
                }
            }
            children.succeeded();
            return new ScaleBenchResult(o, runs);
        }
    }

    private ScaleBenchResult.Run measure(BenchDatabase db, String dbName, Converge producer, BenchChildren children,
            int round, int n, boolean engine) throws Exception {
        String what = engine ? "engine" : "reference";
        progress.accept("round " + round + "/" + o.rounds() + ": " + what + ", " + n + " process" + (n > 1 ? "es" : "")
                + " x " + o.workers() + " threads, " + o.jobs() + " jobs");
        fill(db, producer);
        double load = loadAverage();
        String childUrl = db.url() + (db.url().contains("?") ? "&" : "?") + "ApplicationName=" + CHILD_APP;
        List<ChildJvm> started = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String node = what + "-" + round + "-" + n + "-" + i;
            started.add(children.start(node, ScaleNode.class, List.of(),
                    List.of(what, childUrl, o.user(), Integer.toString(o.workers()), node)));
        }
        try (Connection admin = DriverManager.getConnection(o.dbUrl(), o.user(), null)) {
            awaitReady(started);
            Thread.sleep(1100); // the children's start-up commits reach pg_stat_database before the baseline
            long commitsBefore = commits(admin, dbName);
            BackendActivity sampler = new BackendActivity(o.dbUrl(), o.user(), dbName, CHILD_APP);
            sampler.start();
            long polls;
            long elapsed;
            long childCpu;
            try (Connection poll = DriverManager.getConnection(db.url() + (db.url().contains("?") ? "&" : "?")
                    + "ApplicationName=" + POLL_APP, o.user(), null);
                    PreparedStatement left = poll.prepareStatement("SELECT EXISTS (SELECT 1 FROM cv_job WHERE state = "
                            + "'available') OR EXISTS (SELECT 1 FROM cv_job WHERE lease_expires_at IS NOT NULL)")) {
                long cpuBefore = cpuNanos(started);
                long start = System.nanoTime();
                for (ChildJvm c : started) {
                    c.go();
                }
                polls = 0;
                while (true) {
                    polls++;
                    try (ResultSet rs = left.executeQuery()) {
                        rs.next();
                        if (!rs.getBoolean(1)) {
                            break;
                        }
                    }
                    for (ChildJvm c : started) {
                        if (!c.alive()) {
                            throw new IllegalStateException(c.name() + " died during the run:\n" + tail(c.output()));
                        }
                    }
                    if (System.nanoTime() - start > TimeUnit.MILLISECONDS.toNanos(RUN_TIMEOUT_MS)) {
                        throw new IllegalStateException("the run did not finish in " + RUN_TIMEOUT_MS / 60_000 + " minutes");
                    }
                    Thread.sleep(10);
                }
                elapsed = System.nanoTime() - start;
                childCpu = cpuNanos(started) - cpuBefore;
            } finally {
                sampler.stop();
            }
            long handled = finish(started);
            children.ended(started);
            awaitGone(admin, dbName);
            long commits = commits(admin, dbName) - commitsBefore - polls;
            try (Connection c = db.connect(); Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SELECT count(*) FILTER (WHERE state = 'succeeded'), "
                            + "coalesce(max(attempt), 0), count(*) FROM cv_job")) {
                rs.next();
                var run = new ScaleBenchResult.Run(round, n, engine, o.jobs() * 1e9 / elapsed, (double) commits / o.jobs(),
                        sampler.peakConnections(), sampler.peakActive(), childCpu / 1e3 / o.jobs(),
                        sampler.backendCpuNanos() / 1e3 / o.jobs(), rs.getLong(1), rs.getInt(2), rs.getLong(3), handled, load);
                progress.accept("  " + run.summary());
                return run;
            }
        } finally {
            for (ChildJvm c : started) {
                if (c.alive()) {
                    c.stop(1000);
                }
            }
        }
    }

    private void fill(BenchDatabase db, Converge producer) throws Exception {
        fill(db, producer, o.jobs(), o.vacuum());
    }

    /** Empties the job table, then enqueues {@code n} no-op jobs in one call (and vacuums, when asked). */
    static void fill(BenchDatabase db, Converge producer, int n, boolean vacuum) throws Exception {
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            BenchDatabase.truncateJobs(c, st);
        }
        List<Job<NoopJob>> jobs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            jobs.add(Job.of(NoopJob.TYPE, new NoopJob(i)));
        }
        producer.enqueueAll(jobs);
        if (vacuum) {
            try (Connection c = db.connect(); Statement st = c.createStatement()) {
                st.execute("VACUUM ANALYZE cv_job");
            }
        }
    }

    private static void awaitReady(List<ChildJvm> started) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_TIMEOUT_MS);
        for (ChildJvm c : started) {
            while (!c.output().contains(ScaleNode.READY)) {
                if (!c.alive()) {
                    throw new IllegalStateException(c.name() + " exited before it was ready:\n" + tail(c.output()));
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(c.name() + " not ready in " + READY_TIMEOUT_MS / 1000 + " s:\n"
                            + tail(c.output()));
                }
                Thread.sleep(20);
            }
        }
    }

    /** Ends the children's input, waits for them to exit, and sums the jobs they report. */
    static long finish(List<ChildJvm> started) throws InterruptedException {
        started.forEach(ChildJvm::endInput);
        long handled = 0;
        for (ChildJvm c : started) {
            if (!c.process().waitFor(60, TimeUnit.SECONDS)) {
                c.stop(1000);
                throw new IllegalStateException(c.name() + " did not exit within 60 s of the end of its input:\n"
                        + tail(c.output()));
            }
            String out = c.output();
            int at = out.lastIndexOf(ScaleNode.HANDLED);
            if (c.process().exitValue() != 0 || at < 0) {
                throw new IllegalStateException(c.name() + " exited with " + c.process().exitValue() + ":\n" + tail(out));
            }
            handled += Long.parseLong(out.substring(at + ScaleNode.HANDLED.length()).lines().findFirst().orElse("").trim());
        }
        return handled;
    }

    /** Waits until the children's and the poll's backends have ended (a backend flushes its statistics as it ends). */
    private static void awaitGone(Connection admin, String dbName) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (PreparedStatement st = admin.prepareStatement("SELECT count(*) FROM pg_stat_activity WHERE datname = ? "
                + "AND application_name IN ('" + CHILD_APP + "', '" + POLL_APP + "')")) {
            st.setString(1, dbName);
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = st.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) == 0) {
                        return;
                    }
                }
                Thread.sleep(20);
            }
        }
    }

    /** CPU time the children's JVMs have used so far (every thread: handlers, fetchers, JIT compilers, GC). */
    private static long cpuNanos(List<ChildJvm> started) {
        long sum = 0;
        for (ChildJvm c : started) {
            sum += c.process().info().totalCpuDuration().map(java.time.Duration::toNanos).orElse(0L);
        }
        return sum;
    }

    private static long commits(Connection admin, String dbName) throws SQLException {
        try (PreparedStatement st = admin.prepareStatement("SELECT xact_commit FROM pg_stat_database WHERE datname = ?")) {
            st.setString(1, dbName);
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        }
    }

    static String tail(String log) {
        return log.length() <= 4000 ? log : log.substring(log.length() - 4000);
    }

    static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind
        }
    }
}
