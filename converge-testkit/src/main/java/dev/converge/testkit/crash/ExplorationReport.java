package dev.converge.testkit.crash;

import dev.converge.crash.CrashPoint;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** What the explorer did: one run per (crash point, occurrence), whether it crashed there, and whether it converged. */
public final class ExplorationReport {
    /** One run of the scenario. */
    public record Run(CrashPoint point, int occurrence, boolean crashed, List<String> violations, long millis) {
        public boolean converged() {
            return violations.isEmpty();
        }
    }

    private final Map<CrashPoint, Integer> dryRunReached;
    private final List<Run> runs = new ArrayList<>();

    ExplorationReport(Map<CrashPoint, Integer> dryRunReached) {
        this.dryRunReached = new EnumMap<>(dryRunReached.isEmpty() ? Map.of() : dryRunReached);
    }

    void add(Run run) {
        runs.add(run);
    }

    public List<Run> runs() {
        return List.copyOf(runs);
    }

    /** How often each point is reached by one clean run of the scenario. */
    public Map<CrashPoint, Integer> reachedInDryRun() {
        return dryRunReached;
    }

    /** Crashes actually injected, per point. */
    public Map<CrashPoint, Integer> crashesPerPoint() {
        Map<CrashPoint, Integer> out = new EnumMap<>(CrashPoint.class);
        for (Run r : runs) {
            if (r.crashed()) {
                out.merge(r.point(), 1, Integer::sum);
            }
        }
        return out;
    }

    public boolean allConverged() {
        return runs.stream().allMatch(Run::converged);
    }

    public List<String> violations() {
        List<String> out = new ArrayList<>();
        for (Run r : runs) {
            for (String v : r.violations()) {
                out.add(r.point() + " #" + r.occurrence() + ": " + v);
            }
        }
        return out;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(String.format("%-28s %8s %8s %10s%n", "crash point", "reached", "crashed",
                "converged"));
        for (CrashPoint p : CrashPoint.values()) {
            long crashed = runs.stream().filter(r -> r.point() == p && r.crashed()).count();
            long converged = runs.stream().filter(r -> r.point() == p && r.crashed() && r.converged()).count();
            s.append(String.format("%-28s %8d %8d %10s%n", p.id(), dryRunReached.getOrDefault(p, 0), crashed,
                    crashed == 0 ? "-" : converged + "/" + crashed));
        }
        List<String> v = violations();
        s.append(v.isEmpty() ? "every run converged" : v.size() + " violation(s):\n  " + String.join("\n  ", v));
        return s.toString();
    }
}
