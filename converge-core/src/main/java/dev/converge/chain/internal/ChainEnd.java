package dev.converge.chain.internal;

/**
 * What a chain's move means for the flow whose body it is: nothing, or the chain ended. The chain
 * tracker returns it instead of calling the flow, so that the router above moves the flow and
 * nothing below reaches back up.
 */
public sealed interface ChainEnd permits ChainEnd.None, ChainEnd.Succeeded, ChainEnd.Failed {
    ChainEnd NONE = new None();

    /** The chain is no flow's body, or it did not end now (or had ended already). */
    record None() implements ChainEnd {
    }

    /** The flow's chain ran every link. */
    record Succeeded(long flowId) implements ChainEnd {
    }

    /** The flow's chain failed or was cancelled: the flow can make no more progress. */
    record Failed(long flowId, String reason) implements ChainEnd {
    }
}
