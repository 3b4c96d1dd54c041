package dev.converge.ledger;

import dev.converge.ConvergeException;

/**
 * A call to a leaf (external) service did not simply succeed. The subtype says what is known
 * about the leaf's state afterwards, which is all a retry policy needs to decide:
 * {@link AmbiguousOutcome} (it may have taken effect), {@link LeafRejected} (it did not), or
 * {@link ResourceExists} (the natural key is already taken there).
 *
 * <p>Messages never carry credentials: drivers build them from the method, path and status.
 */
public abstract class LeafCallException extends ConvergeException {
    private final String leaf;

    protected LeafCallException(String leaf, String message, Throwable cause) {
        super(leaf + ": " + message, cause);
        this.leaf = leaf;
    }

    /** The leaf service's name ("githost", "hosting", ...). */
    public String leaf() {
        return leaf;
    }
}
