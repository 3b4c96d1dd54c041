package dev.converge.proof.bench;

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
 * Each throughput is measured for the engine and its reference in the cold round and in every
 * warm round; the warm figures are medians, and each ratio is that of the medians.
 */
public record QueueBenchResult(
        String store,
        int jobs,
        int workers,
        int singleJobs,
        Figure bulk,
        Figure single,
        Figure process,
        double pickupP50Ms,
        double pickupP99Ms,
        double pickupTxP50Ms,
        double pickupTxP99Ms,
        String settings) {

    /** One throughput, engine and reference: the cold round and the warm rounds. */
    public static final class Figure {
        private double coldEngine;
        private double coldReference;
        private final double[] engine;
        private final double[] reference;

        Figure(int warmRounds) {
            this.engine = new double[warmRounds];
            this.reference = new double[warmRounds];
        }

        /** Round 0 is the cold one. */
        void put(int round, boolean isEngine, double jps) {
            if (round == 0) {
                if (isEngine) {
                    coldEngine = jps;
                } else {
                    coldReference = jps;
                }
            } else {
                (isEngine ? engine : reference)[round - 1] = jps;
            }
        }

        public double engine() {
            return median(engine);
        }

        public double reference() {
            return median(reference);
        }

        public double ratio() {
            return engine() / reference();
        }

        /** Whether this phase ran ({@code --only} may leave it out). */
        public boolean measured() {
            return coldEngine > 0;
        }

        public double coldEngine() {
            return coldEngine;
        }

        public double coldReference() {
            return coldReference;
        }

        public double coldRatio() {
            return coldEngine / coldReference;
        }

        public double[] engineRounds() {
            return engine.clone();
        }

        public double[] referenceRounds() {
            return reference.clone();
        }
    }

    public double enqueueBulkJps() {
        return bulk.engine();
    }

    public double processJps() {
        return process.engine();
    }

    public double referenceProcessJps() {
        return process.reference();
    }

    public double ratio() {
        return process.ratio();
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
        m.put("settings", settings);
        m.put("rounds", process.engine.length);
        figure(m, "enqueue_bulk", bulk);
        figure(m, "enqueue_single", single);
        m.put("enqueue_single_jobs", singleJobs);
        figure(m, "process", process);
        if (process.measured()) {
            m.put("ratio", round2(process.ratio()));
            m.put("cold_ratio", round2(process.coldRatio()));
        }
        if (!Double.isNaN(pickupP50Ms)) {
            m.put("pickup_p50_ms", round2(pickupP50Ms));
            m.put("pickup_p99_ms", round2(pickupP99Ms));
        }
        if (!Double.isNaN(pickupTxP50Ms)) {
            m.put("pickup_in_tx_p50_ms", round2(pickupTxP50Ms));
            m.put("pickup_in_tx_p99_ms", round2(pickupTxP99Ms));
        }
        return m;
    }

    private static void figure(Map<String, Object> m, String key, Figure f) {
        if (!f.measured()) {
            return;
        }
        m.put(key + "_jps", Math.round(f.engine()));
        m.put("reference_" + key + "_jps", Math.round(f.reference()));
        m.put(key + "_ratio", round2(f.ratio()));
        m.put(key + "_cold_jps", Math.round(f.coldEngine()));
        m.put("reference_" + key + "_cold_jps", Math.round(f.coldReference()));
        m.put(key + "_cold_ratio", round2(f.coldRatio()));
        m.put(key + "_jps_rounds", rounded(f.engine));
        m.put("reference_" + key + "_jps_rounds", rounded(f.reference));
    }

    public void writeJson(Path file) throws IOException {
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), toJson());
    }

    public void print(PrintStream out) {
        boolean pg = store.equals("postgres");
        out.printf(Locale.ROOT, "converge bench queue: store=%s jobs=%d workers=%d%n", store, jobs, workers);
        out.printf(Locale.ROOT, "  engine: %s%n", settings);
        out.printf(Locale.ROOT, "  cold = first round of this JVM; warm = median of %d rounds after it; "
                + "engine and reference take turns in every round%n", process.engine.length);
        out.printf(Locale.ROOT, "  %-44s %12s %12s %6s   %12s %12s %6s%n", "jobs/s", "cold engine", "reference", "ratio",
                "warm engine", "reference", "ratio");
        row(out, pg ? "enqueue, bulk (enqueueAll; ref: unnest/1000)" : "enqueue, bulk (enqueueAll; ref: batch/1000)", bulk, pg ? "target >= 1.0" : "");
        row(out, "enqueue, one per tx, " + workers + " threads (ref: INSERT)", single, pg ? "target >= 0.9" : "");
        row(out, "processing no-op jobs until durably done", process, pg ? "target >= 0.9" : "");
        if (!Double.isNaN(pickupP50Ms)) {
            out.printf(Locale.ROOT, "  %-44s %9.2f ms p50 %9.2f ms p99 %s%n", "pickup, idle queue, enqueue to handler start",
                    pickupP50Ms, pickupP99Ms, pg ? "  target p50 < 5, p99 < 20" : "");
        }
        if (!Double.isNaN(pickupTxP50Ms)) {
            out.printf(Locale.ROOT, "  %-44s %9.2f ms p50 %9.2f ms p99%n", "pickup, enqueued in the caller's transaction",
                    pickupTxP50Ms, pickupTxP99Ms);
        }
        rounds(out, "warm rounds: bulk, engine / reference", bulk);
        rounds(out, "warm rounds: one per tx, engine / ref.", single);
        rounds(out, "warm rounds: processing, engine / ref.", process);
    }

    private static void row(PrintStream out, String what, Figure f, String target) {
        if (!f.measured()) {
            return;
        }
        out.printf(Locale.ROOT, "  %-44s %,12.0f %,12.0f %6.2f   %,12.0f %,12.0f %6.2f  %s%n", what, f.coldEngine(),
                f.coldReference(), f.coldRatio(), f.engine(), f.reference(), f.ratio(), target);
    }

    private static void rounds(PrintStream out, String what, Figure f) {
        if (!f.measured()) {
            return;
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < f.engine.length; i++) {
            b.append(i == 0 ? "" : ",  ").append(String.format(Locale.ROOT, "%,.0f / %,.0f", f.engine[i], f.reference[i]));
        }
        out.printf(Locale.ROOT, "  %-40s %s jobs/s%n", what, b);
    }

    private static List<Long> rounded(double[] values) {
        List<Long> r = new ArrayList<>(values.length);
        for (double v : values) {
            r.add(Math.round(v));
        }
        return r;
    }

    private static double round2(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
