package dev.converge.ledger;

/**
 * The call may or may not have taken effect at the leaf: a timeout or connection reset after
 * the request was sent, a 5xx answer to a create, a 2xx whose body does not parse. A driver
 * raises this instead of guessing (R4); the ledger marks its row uncertain so the next attempt
 * looks at the leaf before it creates again.
 */
public class AmbiguousOutcome extends LeafCallException {
    public AmbiguousOutcome(String leaf, String message, Throwable cause) {
        super(leaf, message, cause);
    }

    public AmbiguousOutcome(String leaf, String message) {
        super(leaf, message, null);
    }
}
