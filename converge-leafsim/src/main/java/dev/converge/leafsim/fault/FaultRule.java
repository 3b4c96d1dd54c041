package dev.converge.leafsim.fault;

import java.util.Objects;

/**
 * When one fault fires: on a leaf's route ("*" or null: every route of the leaf), with a
 * probability, optionally only for the next {@code times} matching calls.
 *
 * @param probability       0..1; null means 1 (always)
 * @param times             fire at most this many times, then the rule is spent; null: unlimited
 * @param latencyMs         for {@link FaultType#LATENCY}
 * @param hangMs            for {@link FaultType#HANG_AFTER}; null: the server's default hang
 * @param retryAfterSeconds for {@link FaultType#THROTTLE}; null: 1
 */
public record FaultRule(String leaf, String route, FaultType type, Double probability, Integer times,
        Long latencyMs, Long hangMs, Integer retryAfterSeconds) {
    public FaultRule {
        Objects.requireNonNull(leaf, "leaf");
        Objects.requireNonNull(type, "type");
        route = route == null || route.isBlank() ? "*" : route;
        probability = probability == null ? 1.0 : probability;
        if (probability < 0 || probability > 1) {
            throw new IllegalArgumentException("probability must be within 0..1: " + probability);
        }
        if (times != null && times < 1) {
            throw new IllegalArgumentException("times must be positive: " + times);
        }
        if (type == FaultType.LATENCY && (latencyMs == null || latencyMs < 0)) {
            throw new IllegalArgumentException("LATENCY needs latencyMs >= 0");
        }
    }

    /** A rule that fires on every matching call. */
    public static FaultRule of(String leaf, String route, FaultType type) {
        return new FaultRule(leaf, route, type, 1.0, null, type == FaultType.LATENCY ? 0L : null, null, null);
    }

    public static FaultRule latency(String leaf, String route, long millis) {
        return of(leaf, route, FaultType.LATENCY).withLatencyMs(millis);
    }

    public FaultRule withProbability(double p) {
        return new FaultRule(leaf, route, type, p, times, latencyMs, hangMs, retryAfterSeconds);
    }

    /** Fires on the next {@code n} matching calls only (subject to the probability). */
    public FaultRule times(int n) {
        return new FaultRule(leaf, route, type, probability, n, latencyMs, hangMs, retryAfterSeconds);
    }

    public FaultRule withLatencyMs(long millis) {
        return new FaultRule(leaf, route, type, probability, times, millis, hangMs, retryAfterSeconds);
    }

    public FaultRule withHangMs(long millis) {
        return new FaultRule(leaf, route, type, probability, times, latencyMs, millis, retryAfterSeconds);
    }

    public FaultRule withRetryAfterSeconds(int seconds) {
        return new FaultRule(leaf, route, type, probability, times, latencyMs, hangMs, seconds);
    }

    boolean matches(String leafName, String routeName) {
        return leaf.equals(leafName) && ("*".equals(route) || route.equals(routeName));
    }
}
