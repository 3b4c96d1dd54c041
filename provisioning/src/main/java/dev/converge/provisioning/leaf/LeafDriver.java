package dev.converge.provisioning.leaf;

import dev.converge.ledger.AmbiguousOutcome;
import dev.converge.ledger.LeafRejected;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.ResourceExists;
import java.util.List;
import java.util.Optional;

/**
 * A strict client of one leaf service. It never guesses (R4): every call either returns what the
 * leaf confirmed or raises what is known about the leaf's state afterwards —
 * {@link AmbiguousOutcome} (it may have happened), {@link LeafRejected} (it did not, and
 * {@code isTransient()} says whether trying later can help), {@link ResourceExists} (the natural
 * key is taken there). Leaf-specific parameters (org, server, prefix) live in each driver's config.
 */
public interface LeafDriver {
    /** The leaf's name in ledger rows, inventories and exceptions ("githost", "license", ...). */
    String leaf();

    /**
     * Creates the resource for a natural key, carrying our tag where the leaf keeps free text.
     *
     * @param idempotencyKey derived from the ledger row; sent where the leaf honours one, else ignored
     */
    LeafResource create(String naturalKey, String tag, String idempotencyKey);

    /**
     * Looks the natural key up at the leaf; reads never create. A failed read raises
     * {@link LeafRejected}: "not known yet, ask again later", never "absent".
     */
    Optional<LeafResource> find(String naturalKey);

    /** Deletes by the leaf's id; deleting what is already gone succeeds (R2). */
    void delete(String leafId);

    /** Everything the leaf holds now in our scope (org, server, name prefix), for orphan reconciliation. */
    List<LeafResource> list();
}
