package dev.converge.proof.bench;

import dev.converge.Converge;
import dev.converge.proof.chaos.ChildJvm;
import dev.converge.store.Store;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * {@code bench start}: how soon a node that starts works at full speed. A queue holds the jobs; one
 * process is started cold (the JVM's defaults unless JVM options are given, the same to both sides) and works
 * them: the engine on the builder's defaults, or the hand-written SKIP LOCKED loop for reference, in
 * alternating order. The child counts the jobs it has durably finished every millisecond from the first
 * instruction of its main; from those counts and the moment the process was launched come the time to the
 * first job, the best rate over one second (the steady rate), the moment the rate first came within 90% of
 * it, and the time until the queue was empty.
 */
public final class StartBench {
    private static final long RUN_TIMEOUT_MS = 10 * 60_000;
    private static final long WINDOW_MS = 1000;
    private static final long STEP_MS = 50;

    /**
     * What to run: {@code jobs} waiting for a process of {@code workers} threads, {@code rounds} times each
     * side, each process with these JVM options (none: the JVM's defaults).
     */
    public record Options(String dbUrl, String user, int jobs, int workers, int rounds, List<String> jvmOptions) {
        public Options {
            jvmOptions = List.copyOf(jvmOptions);
            for (String option : jvmOptions) {
                if (!option.startsWith("-")) {
                    throw new IllegalArgumentException("--jvm-option takes JVM options, each starting with '-', was " + option);
                }
            }
            if (jobs < 1000 || jobs > 10_000_000) {
                throw new IllegalArgumentException("--jobs must be between 1000 and 10000000, was " + jobs);
            }
            if (workers < 1 || workers > 1000) {
                throw new IllegalArgumentException("--workers must be between 1 and 1000, was " + workers);
            }
            if (rounds < 1 || rounds > 20) {
                throw new IllegalArgumentException("--rounds must be between 1 and 20, was " + rounds);
            }
        }
    }

    /**
     * One start: milliseconds from the launch of the process to its first finished job, to the start of
     * its first second within 90% of its best, and to its last job; the best one-second rate.
     */
    public record Run(int round, boolean engine, long firstJobMs, long steadyAtMs, long doneMs, double steadyRate,
            long jobs) {
        String side() {
            return engine ? "engine" : "reference";
        }
    }

    private final Options o;
    private final Consumer<String> progress;

    public StartBench(Options options, Consumer<String> progress) {
        this.o = options;
        this.progress = progress;
    }

    public List<Run> run() throws Exception {
        try (BenchDatabase db = BenchDatabase.create(true, o.dbUrl(), o.user());
                BenchChildren children = new BenchChildren("start", progress);
                Store store = Store.open(db.config().poolName("bench").build());
                Converge producer = Converge.builder(store).declare(NoopJob.TYPE).nodeId("bench-producer").build()) {
            List<Run> runs = new ArrayList<>();
            for (int r = 1; r <= o.rounds(); r++) {
                boolean engineFirst = r % 2 == 1;
                for (int turn = 0; turn < 2; turn++) {
                    runs.add(measure(db, producer, children, r, (turn == 0) == engineFirst));
                }
            }
            children.succeeded();
            return runs;
        }
    }

    private Run measure(BenchDatabase db, Converge producer, BenchChildren children, int round, boolean engine)
            throws Exception {
        String what = engine ? "engine" : "reference";
        progress.accept("round " + round + "/" + o.rounds() + ": " + what + ", one process started cold, "
                + o.workers() + " threads, " + o.jobs() + " jobs waiting");
        ScaleBench.fill(db, producer, o.jobs(), false);
        String node = what + "-" + round;
        ChildJvm child;
        long launched;
        try (Connection poll = db.connect();
                PreparedStatement left = poll.prepareStatement("SELECT EXISTS (SELECT 1 FROM cv_job WHERE state = "
                        + "'available') OR EXISTS (SELECT 1 FROM cv_job WHERE lease_expires_at IS NOT NULL)")) {
            launched = System.currentTimeMillis();
            child = children.start(node, ScaleNode.class, o.jvmOptions(),
                    List.of(what, db.url(), o.user(), Integer.toString(o.workers()), node, "now"));
            while (true) {
                try (ResultSet rs = left.executeQuery()) {
                    rs.next();
                    if (!rs.getBoolean(1)) {
                        break;
                    }
                }
                if (!child.alive()) {
                    throw new IllegalStateException(node + " died during the run:\n" + ScaleBench.tail(child.output()));
                }
                if (System.currentTimeMillis() - launched > RUN_TIMEOUT_MS) {
                    throw new IllegalStateException("the run did not finish in " + RUN_TIMEOUT_MS / 60_000 + " minutes");
                }
                Thread.sleep(20);
            }
        }
        ScaleBench.finish(List.of(child));
        children.ended(List.of(child));
        String out = child.output();
        int at = out.lastIndexOf(ScaleNode.PROGRESS);
        if (at < 0) {
            throw new IllegalStateException(node + " printed no progress:\n" + ScaleBench.tail(out));
        }
        String pairs = out.substring(at + ScaleNode.PROGRESS.length()).lines().findFirst().orElse("").trim();
        Run run = figures(round, engine, launched, pairs);
        if (run.jobs() != o.jobs()) {
            throw new IllegalStateException(node + " finished " + run.jobs() + " jobs of " + o.jobs());
        }
        progress.accept(String.format(Locale.ROOT, "  first job %,d ms, within 90%% of its best second at %,d ms, "
                + "best second %,.0f jobs/s, all done at %,d ms", run.firstJobMs(), run.steadyAtMs(), run.steadyRate(),
                run.doneMs()));
        return run;
    }

    /**
     * The figures of one start from its samples ({@code millis:count,...}, counts never falling) and the
     * moment it was launched.
     */
    static Run figures(int round, boolean engine, long launched, String pairs) {
        String[] parts = pairs.split(",");
        long[] t = new long[parts.length];
        long[] n = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            int colon = parts[i].indexOf(':');
            t[i] = Long.parseLong(parts[i].substring(0, colon)) - launched;
            n[i] = Long.parseLong(parts[i].substring(colon + 1));
        }
        long total = n[n.length - 1];
        long first = -1;
        long done = -1;
        for (int i = 0; i < n.length; i++) {
            if (first < 0 && n[i] > 0) {
                first = t[i];
            }
            if (done < 0 && n[i] == total) {
                done = t[i];
            }
        }
        if (first < 0) {
            throw new IllegalStateException("no job was finished");
        }
        double best = 0;
        for (long a = first; a + WINDOW_MS <= done; a += STEP_MS) {
            best = Math.max(best, countAt(t, n, a + WINDOW_MS) - countAt(t, n, a));
        }
        if (best == 0) { // the whole queue took less than a window: its mean rate is all there is
            best = total * 1000.0 / Math.max(1, done - first);
            return new Run(round, engine, first, first, done, best, total);
        }
        long steady = done;
        for (long a = first; a + WINDOW_MS <= done; a += STEP_MS) {
            if (countAt(t, n, a + WINDOW_MS) - countAt(t, n, a) >= 0.9 * best) {
                steady = a;
                break;
            }
        }
        return new Run(round, engine, first, steady, done, best * 1000.0 / WINDOW_MS, total);
    }

    /** The count at {@code ms} after the launch: that of the last sample at or before it. */
    private static long countAt(long[] t, long[] n, long ms) {
        int i = Arrays.binarySearch(t, ms);
        if (i < 0) {
            i = -i - 2;
        } else {
            while (i + 1 < t.length && t[i + 1] == ms) {
                i++;
            }
        }
        return i < 0 ? 0 : n[i];
    }

    /** The runs, then each side's medians and the engine's against the reference's. */
    public static void print(Options o, List<Run> runs, PrintStream out) {
        out.printf(Locale.ROOT, "bench start: %,d no-op jobs waiting; one process started cold (%s), "
                + "%d threads; %d round(s), the sides alternating%n", o.jobs(),
                o.jvmOptions().isEmpty() ? "the JVM's defaults" : String.join(" ", o.jvmOptions()), o.workers(), o.rounds());
        out.println("round  side        first job   steady from   best second      all done");
        for (Run r : runs) {
            out.printf(Locale.ROOT, "%-6d %-10s %,8d ms   %,8d ms   %,9.0f/s   %,8d ms%n", r.round(), r.side(),
                    r.firstJobMs(), r.steadyAtMs(), r.steadyRate(), r.doneMs());
        }
        Run e = median(runs, true);
        Run ref = median(runs, false);
        out.printf(Locale.ROOT, "median engine     first job %,d ms, steady from %,d ms, best second %,.0f jobs/s, all done %,d ms%n",
                e.firstJobMs(), e.steadyAtMs(), e.steadyRate(), e.doneMs());
        out.printf(Locale.ROOT, "median reference  first job %,d ms, steady from %,d ms, best second %,.0f jobs/s, all done %,d ms%n",
                ref.firstJobMs(), ref.steadyAtMs(), ref.steadyRate(), ref.doneMs());
        out.printf(Locale.ROOT, "engine/reference  best second %.2fx; from launch to the empty queue %.2fx the time%n",
                e.steadyRate() / ref.steadyRate(), (double) e.doneMs() / ref.doneMs());
    }

    private static Run median(List<Run> runs, boolean engine) {
        List<Run> side = runs.stream().filter(r -> r.engine() == engine).toList();
        return new Run(0, engine, median(side.stream().mapToDouble(Run::firstJobMs).toArray()).longValue(),
                median(side.stream().mapToDouble(Run::steadyAtMs).toArray()).longValue(),
                median(side.stream().mapToDouble(Run::doneMs).toArray()).longValue(),
                median(side.stream().mapToDouble(Run::steadyRate).toArray()), side.get(0).jobs());
    }

    private static Double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
