package dev.converge.testkit.crash;

import dev.converge.crash.CrashPlan;
import dev.converge.crash.CrashPoint;
import dev.converge.crash.SimulatedCrash;
import dev.converge.lease.JobLease;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A crash plan that kills the attempt the {@code occurrence}-th time {@code target} is reached
 * (once per run), and counts every point reached. Occurrence 0 never crashes: a dry run that
 * only counts.
 */
public final class CrashInjector implements CrashPlan {
    private final CrashPoint target;
    private final int occurrence;
    private final Map<CrashPoint, Integer> reached = new EnumMap<>(CrashPoint.class);
    private final AtomicBoolean crashed = new AtomicBoolean();

    public CrashInjector(CrashPoint target, int occurrence) {
        this.target = target;
        this.occurrence = occurrence;
    }

    public static CrashInjector dryRun() {
        return new CrashInjector(null, 0);
    }

    @Override
    public void reached(CrashPoint point, JobLease lease) {
        int n;
        synchronized (reached) {
            n = reached.merge(point, 1, Integer::sum);
        }
        if (point == target && n == occurrence && crashed.compareAndSet(false, true)) {
            throw new SimulatedCrash(point);
        }
    }

    public CrashPoint target() {
        return target;
    }

    public int occurrence() {
        return occurrence;
    }

    public boolean crashed() {
        return crashed.get();
    }

    public Map<CrashPoint, Integer> reached() {
        synchronized (reached) {
            return new EnumMap<>(reached);
        }
    }

    @Override
    public String toString() {
        return target == null ? "dry run" : "crash at " + target + " #" + occurrence;
    }
}
