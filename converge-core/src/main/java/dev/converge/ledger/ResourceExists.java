package dev.converge.ledger;

/**
 * The leaf refused a create because a resource with the same natural key exists (409/422). It
 * may be ours (an earlier attempt that crashed before it was recorded) or someone else's; the
 * ledger resolves it by lookup and adopts it only if it carries our tag.
 */
public class ResourceExists extends LeafCallException {
    private final String naturalKey;

    public ResourceExists(String leaf, String naturalKey, String message) {
        super(leaf, message, null);
        this.naturalKey = naturalKey;
    }

    public String naturalKey() {
        return naturalKey;
    }
}
