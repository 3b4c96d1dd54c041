package dev.converge.proof.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The figures of one {@code bench flow} run: flows per second and steps per second, ledger-guarded
 * beside plain, the cold round and the median of the warm ones. In the figure, "engine" is the
 * guarded flow and "reference" the plain one. On PostgreSQL it also counts the transactions each
 * flow commits (from the database's own statistics, in the last run of each kind), which unlike a
 * rate does not depend on how busy the machine is, and the CPU time a step took in this JVM and in
 * the database's backends (the latter when the server runs on this machine): where the benchmark is
 * CPU-bound, as on a small machine shared with its database, the ratio of the two sides follows it.
 */
public record FlowBenchResult(String store, int flows, int workers, QueueBenchResult.Figure figure,
        double guardedCommitsPerFlow, double plainCommitsPerFlow, Cpu guardedCpu, Cpu plainCpu, String check) {

    /**
     * CPU time per step over one run, from the engine's start until every flow succeeded.
     *
     * @param jvmMicros      this whole JVM (the engine, the driver, the compiler, the collector), µs
     * @param databaseMicros the run database's server backends, µs (NaN when they cannot be read)
     */
    public record Cpu(double jvmMicros, double databaseMicros) {
        double total() {
            return jvmMicros + (Double.isNaN(databaseMicros) ? 0 : databaseMicros);
        }
    }

    public double guardedStepsPerSecond() {
        return figure.engine() * FlowBench.STEPS;
    }

    public double plainStepsPerSecond() {
        return figure.reference() * FlowBench.STEPS;
    }

    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("store", store);
        m.put("flows", flows);
        m.put("workers", workers);
        m.put("steps_per_flow", FlowBench.STEPS);
        m.put("rounds", figure.engineRounds().length);
        m.put("guarded_flows_per_s", Math.round(figure.engine()));
        m.put("plain_flows_per_s", Math.round(figure.reference()));
        m.put("guarded_steps_per_s", Math.round(guardedStepsPerSecond()));
        m.put("plain_steps_per_s", Math.round(plainStepsPerSecond()));
        m.put("ratio", Math.round(figure.ratio() * 100) / 100.0);
        m.put("guarded_cold_flows_per_s", Math.round(figure.coldEngine()));
        m.put("plain_cold_flows_per_s", Math.round(figure.coldReference()));
        m.put("cold_ratio", Math.round(figure.coldRatio() * 100) / 100.0);
        if (!Double.isNaN(guardedCommitsPerFlow)) {
            m.put("guarded_commits_per_flow", Math.round(guardedCommitsPerFlow * 10) / 10.0);
            m.put("plain_commits_per_flow", Math.round(plainCommitsPerFlow * 10) / 10.0);
        }
        m.put("guarded_jvm_cpu_us_per_step", Math.round(guardedCpu.jvmMicros()));
        m.put("plain_jvm_cpu_us_per_step", Math.round(plainCpu.jvmMicros()));
        if (!Double.isNaN(guardedCpu.databaseMicros())) {
            m.put("guarded_db_cpu_us_per_step", Math.round(guardedCpu.databaseMicros()));
            m.put("plain_db_cpu_us_per_step", Math.round(plainCpu.databaseMicros()));
        }
        m.put("check", check);
        return m;
    }

    private static String describe(Cpu cpu) {
        if (Double.isNaN(cpu.databaseMicros())) {
            return String.format(Locale.ROOT, "%,.0f µs in this JVM", cpu.jvmMicros());
        }
        return String.format(Locale.ROOT, "%,.0f µs (JVM %,.0f + database %,.0f)", cpu.total(), cpu.jvmMicros(),
                cpu.databaseMicros());
    }

    public void writeJson(Path file) throws IOException {
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), toJson());
    }

    public void print(PrintStream out) {
        out.printf(Locale.ROOT, "converge bench flow: store=%s flows=%d workers=%d%n", store, flows, workers);
        out.printf(Locale.ROOT, "  a flow: a batch of three steps, then two more in a chain; guarded: each step "
                + "ensure()s one resource, the last also spends one single-use token; plain: the same flow, each step "
                + "calls the same in-process leaf directly%n");
        out.printf(Locale.ROOT, "  cold = first round of this JVM; warm = median of %d rounds after it%n",
                figure.engineRounds().length);
        out.printf(Locale.ROOT, "  %-22s %12s %12s %6s   %12s %12s %6s%n", "", "cold guarded", "plain", "ratio",
                "warm guarded", "plain", "ratio");
        out.printf(Locale.ROOT, "  %-22s %,12.0f %,12.0f %6.2f   %,12.0f %,12.0f %6.2f%n", "flows/s", figure.coldEngine(),
                figure.coldReference(), figure.coldRatio(), figure.engine(), figure.reference(), figure.ratio());
        out.printf(Locale.ROOT, "  %-22s %,12.0f %,12.0f %6s   %,12.0f %,12.0f %6s  %s%n", "steps/s",
                figure.coldEngine() * FlowBench.STEPS, figure.coldReference() * FlowBench.STEPS, "",
                guardedStepsPerSecond(), plainStepsPerSecond(), "",
                store.equals("postgres") ? "target: guarded >= 2,500 and >= 0.7x plain" : "");
        StringBuilder b = new StringBuilder();
        double[] g = figure.engineRounds();
        double[] p = figure.referenceRounds();
        for (int i = 0; i < g.length; i++) {
            b.append(i == 0 ? "" : ",  ").append(String.format(Locale.ROOT, "%,.0f / %,.0f", g[i], p[i]));
        }
        out.printf(Locale.ROOT, "  warm rounds, guarded / plain: %s flows/s%n", b);
        if (!Double.isNaN(guardedCommitsPerFlow)) {
            out.printf(Locale.ROOT, "  commits per flow: guarded %.1f, plain %.1f (from pg_stat_database, last run of each)%n",
                    guardedCommitsPerFlow, plainCommitsPerFlow);
        }
        out.printf(Locale.ROOT, "  CPU per step, last run of each: guarded %s, plain %s%n", describe(guardedCpu),
                describe(plainCpu));
        out.printf(Locale.ROOT, "  checked after the last guarded run: %s%n", check);
    }
}
