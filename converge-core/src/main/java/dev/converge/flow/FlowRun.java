package dev.converge.flow;

/** The answer to starting a flow: its id, and whether this call created it or found it already there. */
public record FlowRun(long flowId, String kind, String subject, boolean created) {
}
