package dev.converge.ledger;

import dev.converge.queue.NonRetryableException;

/**
 * The natural key is taken by someone else: another subject in our ledger, or a resource at the
 * leaf that does not carry our tag. Adopting it would take what is not ours; retrying cannot
 * help. Callers turn this into an answer the client can act on (a 409, a tool error), never a 500.
 */
public class ResourceConflict extends NonRetryableException {
    private final String kind;
    private final String naturalKey;

    public ResourceConflict(String kind, String naturalKey, String message) {
        super(kind + " '" + naturalKey + "': " + message);
        this.kind = kind;
        this.naturalKey = naturalKey;
    }

    public String kind() {
        return kind;
    }

    public String naturalKey() {
        return naturalKey;
    }
}
