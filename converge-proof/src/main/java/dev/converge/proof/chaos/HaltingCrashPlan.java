package dev.converge.proof.chaos;

import dev.converge.crash.CrashPlan;
import dev.converge.crash.CrashPoint;
import dev.converge.lease.JobLease;
import java.util.EnumMap;
import java.util.Map;
import java.util.Random;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A worker process's crash plan in chaos runs: at a named crash point, with the point's
 * probability, the whole JVM halts at once (no shutdown hook, no finally block, leases left to
 * expire) — the same as a SIGKILL landing in exactly that window. One line naming the point is
 * printed first, so the supervisor can count which windows were hit.
 */
public final class HaltingCrashPlan implements CrashPlan {
    /** The line a halting worker prints, followed by the crash point's id. */
    public static final String MARK = "CRASH-POINT ";
    static final int EXIT_CODE = 137;

    private final Map<CrashPoint, Double> rates;
    private final Random random;
    private final AtomicBoolean halting = new AtomicBoolean();

    HaltingCrashPlan(Map<CrashPoint, Double> rates, long seed) {
        this.rates = new EnumMap<>(rates);
        this.random = new Random(seed);
    }

    /** {@code "0.01"} (every point) or {@code "ledger.after-claim=0.02,*=0.005"}. */
    public static HaltingCrashPlan parse(String spec, long seed) {
        Map<CrashPoint, Double> rates = new EnumMap<>(CrashPoint.class);
        Double fallback = null;
        for (String part : spec.split(",")) {
            String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            int eq = p.indexOf('=');
            if (eq < 0 || p.substring(0, eq).trim().equals("*")) {
                fallback = rate(eq < 0 ? p : p.substring(eq + 1));
            } else {
                rates.put(point(p.substring(0, eq).trim()), rate(p.substring(eq + 1)));
            }
        }
        if (fallback != null) {
            for (CrashPoint cp : CrashPoint.values()) {
                rates.putIfAbsent(cp, fallback);
            }
        }
        return new HaltingCrashPlan(rates, seed);
    }

    /** The spec {@link #parse} reads, for these rates. */
    static String spec(Map<CrashPoint, Double> rates) {
        StringJoiner j = new StringJoiner(",");
        rates.forEach((point, p) -> j.add(point.id() + "=" + String.format(java.util.Locale.ROOT, "%.6f", p)));
        return j.toString();
    }

    /** The probability of halting at this point (0 where none was given). */
    double rate(CrashPoint point) {
        return rates.getOrDefault(point, 0.0);
    }

    @Override
    public void reached(CrashPoint point, JobLease lease) {
        double p = rates.getOrDefault(point, 0.0);
        boolean halt;
        synchronized (random) {
            halt = p > 0 && random.nextDouble() < p;
        }
        if (halt && halting.compareAndSet(false, true)) {
            System.err.println(MARK + point.id());
            System.err.flush();
            Runtime.getRuntime().halt(EXIT_CODE);
        }
        while (halting.get()) {
            try {
                Thread.sleep(1000); // another thread is halting the JVM: nothing here may run on
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static CrashPoint point(String id) {
        for (CrashPoint cp : CrashPoint.values()) {
            if (cp.id().equals(id)) {
                return cp;
            }
        }
        throw new IllegalArgumentException("no crash point '" + id + "'; known: " + java.util.Arrays.toString(CrashPoint.values()));
    }

    private static double rate(String s) {
        double r = Double.parseDouble(s.trim());
        if (r < 0 || r > 1) {
            throw new IllegalArgumentException("a crash rate must be within 0..1: " + s);
        }
        return r;
    }
}
