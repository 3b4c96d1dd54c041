package dev.converge.testkit.crash;

import dev.converge.crash.CrashPoint;
import dev.converge.store.Store;
import dev.converge.testkit.TestStores;
import dev.converge.time.EngineClock;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Runs a scenario once without crashing to learn which crash points it reaches and how often,
 * then once per (point, occurrence), crashing the attempt there as a killed worker would (its
 * lease abandoned, nothing after it run), each time on a fresh store. The scenario lets
 * redelivery finish and checks convergence against ground truth it trusts (a counting leaf).
 *
 * <pre>{@code
 * ExplorationReport report = CrashPointExplorer.forScenario(myScenario).explore();
 * assertThat(report.allConverged()).as(report.toString()).isTrue();
 * }</pre>
 */
public final class CrashPointExplorer {
    private final CrashScenario scenario;
    private Set<CrashPoint> points = EnumSet.allOf(CrashPoint.class);
    private Supplier<Store> stores = () -> TestStores.h2(true, EngineClock.database());
    private boolean everyOccurrence = true;
    private int maxOccurrences = 8;

    private CrashPointExplorer(CrashScenario scenario) {
        this.scenario = scenario;
    }

    public static CrashPointExplorer forScenario(CrashScenario scenario) {
        return new CrashPointExplorer(scenario);
    }

    public CrashPointExplorer points(CrashPoint first, CrashPoint... rest) {
        this.points = EnumSet.of(first, rest);
        return this;
    }

    /** Where each run's fresh store comes from (default: a private in-memory H2 database). */
    public CrashPointExplorer stores(Supplier<Store> factory) {
        this.stores = factory;
        return this;
    }

    /** Crash at every occurrence of a point (default), or only at its first. */
    public CrashPointExplorer everyOccurrence(boolean every, int atMost) {
        this.everyOccurrence = every;
        this.maxOccurrences = atMost;
        return this;
    }

    public ExplorationReport explore() throws Exception {
        CrashInjector dry = CrashInjector.dryRun();
        List<String> dryViolations = runOnce(dry);
        if (!dryViolations.isEmpty()) {
            throw new IllegalStateException("the scenario does not converge even without crashes: " + dryViolations);
        }
        Map<CrashPoint, Integer> reached = dry.reached();
        ExplorationReport report = new ExplorationReport(reached);
        for (CrashPoint p : points) {
            int times = Math.min(reached.getOrDefault(p, 0), everyOccurrence ? maxOccurrences : 1);
            for (int k = 1; k <= times; k++) {
                CrashInjector plan = new CrashInjector(p, k);
                long start = System.nanoTime();
                List<String> violations = runOnce(plan);
                report.add(new ExplorationReport.Run(p, k, plan.crashed(), violations,
                        (System.nanoTime() - start) / 1_000_000));
            }
        }
        return report;
    }

    private List<String> runOnce(CrashInjector plan) throws Exception {
        try (Store store = stores.get()) {
            return scenario.run(store, plan);
        }
    }
}
