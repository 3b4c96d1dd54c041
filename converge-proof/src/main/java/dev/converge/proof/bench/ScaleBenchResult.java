package dev.converge.proof.bench;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/** The figures of one {@code bench scale} run: every measured run, engine and reference, in the order run. */
public final class ScaleBenchResult {
    /**
     * One measured run.
     *
     * @param round           1-based
     * @param processes       child processes that worked
     * @param engine          the engine (or the reference loop)
     * @param jobsPerSecond   jobs from the release of the children until none was due or leased
     * @param commitsPerJob   growth of the scratch database's {@code xact_commit} over the run (the parent's polls
     *                        taken out, the children's shutdown in) per job
     * @param peakConnections most connections the children had open to the database at once (sampled every 20 ms)
     * @param peakActive      most of those running a statement at once
     * @param clientCpuMicros CPU time of the children's JVMs from the release to the end of the run, per job (µs)
     * @param serverCpuMicros CPU time of the children's database backends over the run, per job (µs; NaN when the
     *                        server's processes cannot be read from here)
     * @param succeeded       jobs in state succeeded afterwards
     * @param maxAttempt      highest attempt of any job afterwards (1: none was run twice)
     * @param rows            jobs in the table afterwards
     * @param handled         jobs the children report they processed (handler calls; the reference's marked done)
     * @param load            the machine's one-minute load average just before the run
     */
    record Run(int round, int processes, boolean engine, double jobsPerSecond, double commitsPerJob,
            int peakConnections, int peakActive, double clientCpuMicros, double serverCpuMicros, long succeeded, int maxAttempt, long rows, long handled, double load) {
        String summary() {
            return String.format(Locale.ROOT, "%s, %d process%s: %,.0f jobs/s, %.4f commits/job, peak %d connections "
                    + "(%d active), CPU per job %.0f us in the JVMs and %.0f us in their backends, load %.1f before; "
                    + "%d succeeded, max attempt %d, %d handled", engine ? "engine" : "reference", processes,
                    processes > 1 ? "es" : "", jobsPerSecond, commitsPerJob, peakConnections, peakActive, clientCpuMicros,
                    serverCpuMicros, load, succeeded, maxAttempt, handled);
        }
    }

    private final ScaleBench.Options options;
    private final List<Run> runs;

    ScaleBenchResult(ScaleBench.Options options, List<Run> runs) {
        this.options = options;
        this.runs = List.copyOf(runs);
    }

    List<Run> runs() {
        return runs;
    }

    Run find(int round, int processes, boolean engine) {
        return runs.stream().filter(r -> r.round() == round && r.processes() == processes && r.engine() == engine)
                .findFirst().orElseThrow();
    }

    /** Every run processed every job exactly once: all succeeded, none run twice, as many handled as enqueued. */
    boolean exactlyOnce() {
        return runs.stream().allMatch(r -> r.succeeded() == options.jobs() && r.rows() == options.jobs()
                && r.maxAttempt() == 1 && r.handled() == options.jobs());
    }

    public void print(PrintStream out) {
        out.printf(Locale.ROOT, "converge bench scale: %,d no-op jobs per run, processes %s, %d handler threads per "
                + "process (the reference: %d loop threads per process), %d round%s%n", options.jobs(),
                options.processes(), options.workers(), options.workers(), options.rounds(), options.rounds() > 1 ? "s" : "");
        out.println("  every process is a cold JVM started for the run with the JVM's default options, as a user starts "
                + "one; the engine on the builder's defaults and its default pool; released together once all are ready");
        out.println("  every run starts from TRUNCATE and one bulk enqueue; "
                + (options.vacuum() ? "VACUUM ANALYZE after it (engine and reference alike)" : "no VACUUM/ANALYZE"));
        out.println("  commits/job: growth of pg_stat_database.xact_commit over the run per job (this process's polls "
                + "taken out); connections: peak of the children's, sampled every 20 ms (busy ones in brackets)");
        out.println();
        out.println("| round | processes | engine jobs/s | reference jobs/s | ratio | engine commits/job | reference commits/job "
                + "| engine peak connections | reference peak connections | load before (engine, reference) |");
        out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        for (int round = 1; round <= options.rounds(); round++) {
            for (int n : options.processes()) {
                Run e = find(round, n, true);
                Run r = find(round, n, false);
                out.printf(Locale.ROOT, "| %d | %d | %,.0f | %,.0f | %.2f | %.4f | %.4f | %d (%d) | %d (%d) | %.1f, %.1f |%n",
                        round, n, e.jobsPerSecond(), r.jobsPerSecond(), e.jobsPerSecond() / r.jobsPerSecond(),
                        e.commitsPerJob(), r.commitsPerJob(), e.peakConnections(), e.peakActive(), r.peakConnections(),
                        r.peakActive(), e.load(), r.load());
            }
        }
        out.println();
        out.println("CPU per job (us), from the release to the end of the run: the children's JVMs (every thread, JIT "
                + "compilers included) and their server backends (/proc, 10 ms ticks)");
        out.println();
        out.println("| round | processes | engine JVMs | engine backends | reference JVMs | reference backends |");
        out.println("|---:|---:|---:|---:|---:|---:|");
        for (int round = 1; round <= options.rounds(); round++) {
            for (int n : options.processes()) {
                Run e = find(round, n, true);
                Run r = find(round, n, false);
                out.printf(Locale.ROOT, "| %d | %d | %.0f | %.0f | %.0f | %.0f |%n", round, n, e.clientCpuMicros(),
                        e.serverCpuMicros(), r.clientCpuMicros(), r.serverCpuMicros());
            }
        }
        out.println();
        int first = options.processes().get(0);
        for (int round = 1; round <= options.rounds(); round++) {
            StringBuilder line = new StringBuilder("  round " + round + ", jobs/s relative to " + first + " process"
                    + (first > 1 ? "es" : "") + " (engine / reference):");
            for (int n : options.processes()) {
                line.append(String.format(Locale.ROOT, " %d: %.2f / %.2f;", n,
                        find(round, n, true).jobsPerSecond() / find(round, first, true).jobsPerSecond(),
                        find(round, n, false).jobsPerSecond() / find(round, first, false).jobsPerSecond()));
            }
            out.println(line.substring(0, line.length() - 1));
        }
        out.println("  every job done exactly once in every run (all succeeded, none attempted twice, handled = enqueued): "
                + (exactlyOnce() ? "yes" : "NO"));
    }
}
