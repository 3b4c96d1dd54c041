package dev.converge.batch.internal;

/**
 * What a batch's move means for the chain it is a link of: nothing, or the link ended. The batch
 * tracker returns it instead of calling the chain, so that the router above both moves the chain
 * and nothing below reaches back up.
 */
public sealed interface LinkEnd permits LinkEnd.None, LinkEnd.Succeeded, LinkEnd.Failed {
    LinkEnd NONE = new None();

    /** The batch is not a link, or it did not end now (or had ended already). */
    record None() implements LinkEnd {
    }

    /** The link at {@code position} of the chain succeeded (or ended with failures it allows). */
    record Succeeded(long chainId, int position) implements LinkEnd {
    }

    /** The link at {@code position} of the chain failed or was cancelled. */
    record Failed(long chainId, int position, String reason) implements LinkEnd {
    }
}
