package dev.converge.leafsim.fault;

/** How many times one fault type fired on one leaf route. */
public record FaultHit(String leaf, String route, FaultType type, long hits) {
}
