package dev.converge.leafsim.fault;

/**
 * What to do to one call: added latency, plus at most one fault that shapes the answer.
 *
 * @param outcome     the answer-shaping fault, or null to answer normally
 * @param outcomeRule the rule that chose it (for its parameters), or null
 * @param hitNumber   how many times this outcome had fired on this route, this one included
 */
public record FaultDecision(long latencyMs, FaultType outcome, FaultRule outcomeRule, long hitNumber) {
    public static final FaultDecision NONE = new FaultDecision(0, null, null, 0);
}
