package dev.converge.leafsim.fault;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The faults a simulated leaf injects, decided with one seeded {@link Random} so that the same
 * sequence of calls meets the same faults (a chaos run can be replayed from its seed). Every fault
 * that fires is counted per leaf, route and type, so a test can prove its fault path actually ran
 * instead of passing because the fault never happened.
 */
public final class FaultPlan {
    private final List<ArmedRule> rules = new ArrayList<>();
    private final Map<String, AtomicLong> hits = new ConcurrentHashMap<>();
    private Random random;
    private long seed;

    public FaultPlan(long seed) {
        reseed(seed);
    }

    public synchronized void add(FaultRule... newRules) {
        for (FaultRule rule : newRules) {
            rules.add(new ArmedRule(rule));
        }
    }

    /** Removes every rule; hit counters are kept (see {@link #resetHits()}). */
    public synchronized void clear() {
        rules.clear();
    }

    public synchronized void reseed(long newSeed) {
        this.seed = newSeed;
        this.random = new Random(newSeed);
    }

    public synchronized long seed() {
        return seed;
    }

    /** The rules still able to fire, with {@code times} showing what is left of each. */
    public synchronized List<FaultRule> rules() {
        return rules.stream().filter(r -> !r.spent()).map(ArmedRule::current).toList();
    }

    /** Decides the faults for one call and counts those that fire. */
    public synchronized FaultDecision decide(String leaf, String route) {
        long latency = 0;
        FaultRule outcome = null;
        for (ArmedRule armed : rules) {
            if (armed.spent() || !armed.rule.matches(leaf, route)) {
                continue;
            }
            boolean isLatency = armed.rule.type() == FaultType.LATENCY;
            if (!isLatency && outcome != null) {
                continue;
            }
            double p = armed.rule.probability();
            if (p < 1.0 && random.nextDouble() >= p) {
                continue;
            }
            armed.fired++;
            count(leaf, route, armed.rule.type());
            if (isLatency) {
                latency += armed.rule.latencyMs();
            } else {
                outcome = armed.rule;
            }
        }
        if (latency == 0 && outcome == null) {
            return FaultDecision.NONE;
        }
        FaultType type = outcome == null ? null : outcome.type();
        long hitNumber = type == null ? 0 : hits(leaf, route, type);
        return new FaultDecision(latency, type, outcome, hitNumber);
    }

    public long hits(String leaf, String route, FaultType type) {
        AtomicLong count = hits.get(key(leaf, route, type));
        return count == null ? 0 : count.get();
    }

    /** Hits of one type over every leaf and route. */
    public long hits(FaultType type) {
        return hits().stream().filter(h -> h.type() == type).mapToLong(FaultHit::hits).sum();
    }

    public List<FaultHit> hits() {
        return hits.entrySet().stream().map(e -> {
            String[] parts = e.getKey().split("/", 3);
            return new FaultHit(parts[0], parts[1], FaultType.valueOf(parts[2]), e.getValue().get());
        }).sorted(Comparator.comparing(FaultHit::leaf).thenComparing(FaultHit::route).thenComparing(FaultHit::type))
                .toList();
    }

    public void resetHits() {
        hits.clear();
    }

    private void count(String leaf, String route, FaultType type) {
        hits.computeIfAbsent(key(leaf, route, type), k -> new AtomicLong()).incrementAndGet();
    }

    private static String key(String leaf, String route, FaultType type) {
        return leaf + "/" + route + "/" + type.name();
    }

    /** A rule and how often it has fired; guarded by the plan's lock. */
    private static final class ArmedRule {
        final FaultRule rule;
        int fired;

        ArmedRule(FaultRule rule) {
            this.rule = rule;
        }

        boolean spent() {
            return rule.times() != null && fired >= rule.times();
        }

        FaultRule current() {
            if (rule.times() == null) {
                return rule;
            }
            return new FaultRule(rule.leaf(), rule.route(), rule.type(), rule.probability(), rule.times() - fired,
                    rule.latencyMs(), rule.hangMs(), rule.retryAfterSeconds());
        }
    }
}
