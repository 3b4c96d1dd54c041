package dev.converge.flow;

import java.time.Instant;

/**
 * One entry of a flow's history: a transition, when, and why. {@code from} is null for the start;
 * {@code actor} names the person who acted (a manual retry or settlement), null for the engine.
 */
public record FlowEvent(long id, long flowId, Instant at, FlowState from, FlowState to, String reason, String actor) {
}
