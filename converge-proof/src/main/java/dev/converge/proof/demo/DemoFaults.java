package dev.converge.proof.demo;

import dev.converge.leafsim.LeafSim;
import dev.converge.leafsim.fault.FaultHit;
import dev.converge.leafsim.fault.FaultPlan;
import dev.converge.leafsim.fault.FaultRule;
import dev.converge.leafsim.fault.FaultType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The leaf faults a demo or chaos run switches on: on creates every type (the ones after the
 * create are where a naive retry makes a duplicate), on deletes and lookups the ones a teardown
 * or an adoption must survive. The total rate is spread evenly over the types.
 */
public final class DemoFaults {
    private DemoFaults() {
    }

    public static List<FaultRule> rules(double rate, long hangMs) {
        List<FaultRule> rules = new java.util.ArrayList<>();
        FaultType[] onCreate = {FaultType.LATENCY, FaultType.ERROR_BEFORE, FaultType.THROTTLE, FaultType.ERROR_AFTER,
            FaultType.HANG_AFTER, FaultType.MALFORMED_AFTER, FaultType.RESET_AFTER};
        FaultType[] onOthers = {FaultType.ERROR_BEFORE, FaultType.ERROR_AFTER, FaultType.RESET_AFTER};
        for (String leaf : LeafSim.LEAVES) {
            for (FaultType t : onCreate) {
                rules.add(rule(leaf, "create", t, rate / onCreate.length, hangMs));
            }
            for (String route : List.of("delete", "get", "list")) {
                for (FaultType t : onOthers) {
                    rules.add(rule(leaf, route, t, rate / onOthers.length / 2, hangMs));
                }
            }
        }
        return rules;
    }

    private static FaultRule rule(String leaf, String route, FaultType type, double p, long hangMs) {
        FaultRule r = FaultRule.of(leaf, route, type).withProbability(p);
        return switch (type) {
            case LATENCY -> r.withLatencyMs(150);
            case HANG_AFTER -> r.withHangMs(hangMs);
            default -> r;
        };
    }

    public static void install(FaultPlan plan, double rate, long hangMs) {
        if (rate > 0) {
            plan.add(rules(rate, hangMs).toArray(new FaultRule[0]));
        }
    }

    /** Hits per fault type, every type listed. */
    public static Map<String, Long> hitsByType(List<FaultHit> hits) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (FaultType t : FaultType.values()) {
            out.put(t.name().toLowerCase(), 0L);
        }
        for (FaultHit h : hits) {
            out.merge(h.type().name().toLowerCase(), h.hits(), Long::sum);
        }
        return out;
    }
}
