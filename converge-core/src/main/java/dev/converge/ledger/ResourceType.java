package dev.converge.ledger;

import java.util.List;
import java.util.Optional;

/**
 * A kind of external resource and how to create, find and delete it at its leaf. The ledger
 * calls these; a driver implements them strictly: it raises {@link AmbiguousOutcome} when it
 * cannot know whether the leaf acted, and never guesses (R4).
 */
public interface ResourceType {

    /**
     * Builds a resource type from functions, without a class of its own; one that is given a
     * lookup ({@link ResourceTypeBuilder#findBy}) supports it, and no other does.
     *
     * <pre>{@code
     * ResourceType contacts = ResourceType.named("crm.contact")
     *         .createdBy(RepetitionSafety.IDEMPOTENT_BY_CONSTRAINT, req -> crm.create(req.naturalKey(), req.tag()))
     *         .findBy(email -> crm.findByEmail(email))
     *         .deletedBy(contact -> crm.delete(contact.leafId()))
     *         .build();
     * }</pre>
     */
    static ResourceTypeBuilder named(String kind) {
        return new ResourceTypeBuilder(kind);
    }

    /** A stable name for the kind ("git.repository"); the ledger is unique on (kind, natural key). */
    String kind();

    /** How safe the create is to repeat. Reads are read-only and deletes naturally idempotent by contract. */
    RepetitionSafety createSafety();

    LeafResource create(CreateRequest request) throws LeafCallException;

    /** Finds the resource by natural key at the leaf (R6); empty if absent. */
    default Optional<LeafResource> find(String naturalKey) throws LeafCallException {
        throw new UnsupportedOperationException(kind() + " has no lookup");
    }

    default boolean supportsLookup() {
        return false;
    }

    /** Deletes it; must treat "already gone" as success (R2). */
    void delete(LeafResource resource) throws LeafCallException;

    /** The leaf's inventory of this kind, for orphan reconciliation; empty if the leaf cannot list. */
    default List<LeafResource> list() throws LeafCallException {
        return List.of();
    }
}
