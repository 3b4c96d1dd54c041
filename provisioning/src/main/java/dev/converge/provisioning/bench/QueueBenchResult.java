package dev.converge.provisioning.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The figures of one {@code bench queue} run, printed for people and written as JSON for tools.
 * Bulk enqueue and both processing rates are measured once per round; the figures are their
 * medians, and the ratio is that of the medians.
 */
public record QueueBenchResult(
        String store,
        int jobs,
        int workers,
        double[] enqueueBulkRounds,
        double enqueueSingleJps,
        double[] processRounds,
        double pickupP50Ms,
        double pickupP99Ms,
        double[] referenceRounds,
        String settings) {

    public double enqueueBulkJps() {
        return median(enqueueBulkRounds);
    }

    public double processJps() {
        return median(processRounds);
    }

    public double referenceProcessJps() {
        return median(referenceRounds);
    }

    public double ratio() {
        return processJps() / referenceProcessJps();
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("store", store);
        m.put("jobs", jobs);
        m.put("workers", workers);
        m.put("enqueue_bulk_jps", Math.round(enqueueBulkJps()));
        m.put("enqueue_single_jps", Math.round(enqueueSingleJps));
        m.put("process_jps", Math.round(processJps()));
        m.put("pickup_p50_ms", round2(pickupP50Ms));
        m.put("pickup_p99_ms", round2(pickupP99Ms));
        m.put("reference_process_jps", Math.round(referenceProcessJps()));
        m.put("ratio", round2(ratio()));
        m.put("rounds", processRounds.length);
        m.put("enqueue_bulk_jps_rounds", rounded(enqueueBulkRounds));
        m.put("process_jps_rounds", rounded(processRounds));
        m.put("reference_process_jps_rounds", rounded(referenceRounds));
        return m;
    }

    public void writeJson(Path file) throws IOException {
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), toJson());
    }

    public void print(PrintStream out) {
        boolean pg = store.equals("postgres");
        out.printf(Locale.ROOT, "converge bench queue: store=%s jobs=%d workers=%d%n", store, jobs, workers);
        out.printf(Locale.ROOT, "  engine settings: %s%n", settings);
        out.printf(Locale.ROOT, "  %d measured rounds, engine and reference taking turns; medians below, each round after them%n",
                processRounds.length);
        line(out, "enqueue, bulk (enqueueAll)", enqueueBulkJps(), "jobs/s", pg ? ">= 100,000" : null);
        line(out, "enqueue, one job per transaction (" + workers + " threads)", enqueueSingleJps, "jobs/s", null);
        line(out, "processing no-op jobs until durably done", processJps(), "jobs/s", pg ? ">= 30,000" : null);
        line(out, "reference SKIP LOCKED loop, same run and database", referenceProcessJps(), "jobs/s", null);
        out.printf(Locale.ROOT, "  %-58s %12.2f        %s%n", "ratio engine / reference", ratio(), pg ? "target >= 0.80" : "");
        out.printf(Locale.ROOT, "  %-58s %9.2f ms p50 %s%n", "pickup latency, enqueue to handler start (idle queue)",
                pickupP50Ms, pg ? "target < 10 ms" : "");
        out.printf(Locale.ROOT, "  %-58s %9.2f ms p99%n", "", pickupP99Ms);
        rounds(out, "rounds: bulk enqueue", enqueueBulkRounds);
        rounds(out, "rounds: engine processing", processRounds);
        rounds(out, "rounds: reference processing", referenceRounds);
    }

    private static void rounds(PrintStream out, String what, double[] values) {
        StringBuilder b = new StringBuilder();
        for (double v : values) {
            b.append(b.length() == 0 ? "" : " / ").append(String.format(Locale.ROOT, "%,.0f", v));
        }
        out.printf(Locale.ROOT, "  %-30s %s jobs/s%n", what, b);
    }

    private static List<Long> rounded(double[] values) {
        List<Long> r = new ArrayList<>(values.length);
        for (double v : values) {
            r.add(Math.round(v));
        }
        return r;
    }

    private static void line(PrintStream out, String what, double value, String unit, String target) {
        out.printf(Locale.ROOT, "  %-58s %,12.0f %s %s%n", what, value, unit, target == null ? "" : "target " + target);
    }

    private static double round2(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
