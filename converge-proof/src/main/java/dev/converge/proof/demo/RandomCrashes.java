package dev.converge.proof.demo;

import dev.converge.crash.CrashPlan;
import dev.converge.crash.CrashPoint;
import dev.converge.crash.SimulatedCrash;
import dev.converge.lease.JobLease;
import java.util.EnumMap;
import java.util.Map;
import java.util.Random;

/**
 * Kills attempts at the engine's named crash points at a seeded rate, as if their worker had died
 * there: the attempt stops, its lease expires, the job is delivered again. Counts every hit.
 */
public final class RandomCrashes implements CrashPlan {
    private final Random random;
    private final double rate;
    private final Map<CrashPoint, Integer> reached = new EnumMap<>(CrashPoint.class);
    private final Map<CrashPoint, Integer> crashed = new EnumMap<>(CrashPoint.class);

    public RandomCrashes(long seed, double rate) {
        if (rate < 0 || rate > 1) {
            throw new IllegalArgumentException("crash rate must be between 0 and 1");
        }
        this.random = new Random(seed);
        this.rate = rate;
    }

    @Override
    public void reached(CrashPoint point, JobLease lease) {
        boolean crash;
        synchronized (this) {
            reached.merge(point, 1, Integer::sum);
            crash = random.nextDouble() < rate;
            if (crash) {
                crashed.merge(point, 1, Integer::sum);
            }
        }
        if (crash) {
            throw new SimulatedCrash(point);
        }
    }

    public synchronized Map<String, Integer> crashesPerPoint() {
        Map<String, Integer> out = new java.util.LinkedHashMap<>();
        for (CrashPoint p : CrashPoint.values()) {
            out.put(p.id(), crashed.getOrDefault(p, 0));
        }
        return out;
    }

    public synchronized int total() {
        return crashed.values().stream().mapToInt(Integer::intValue).sum();
    }
}
