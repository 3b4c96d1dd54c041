package dev.converge.ledger;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A kind of external resource and how to create, find and delete it at its leaf. The ledger
 * calls these; a driver implements them strictly: it raises {@link AmbiguousOutcome} when it
 * cannot know whether the leaf acted, and never guesses (R4).
 */
public interface ResourceType {

    /**
     * Builds a resource type from functions, without a class of its own; one that is given a
     * lookup ({@link Builder#findBy}) supports it, and no other does.
     *
     * <pre>{@code
     * ResourceType contacts = ResourceType.named("crm.contact")
     *         .createdBy(RepetitionSafety.IDEMPOTENT_BY_CONSTRAINT, req -> crm.create(req.naturalKey(), req.tag()))
     *         .findBy(email -> crm.findByEmail(email))
     *         .deletedBy(contact -> crm.delete(contact.leafId()))
     *         .build();
     * }</pre>
     */
    static Builder named(String kind) {
        return new Builder(kind);
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

    /**
     * Builds a {@link ResourceType} from a create, an optional lookup, a delete and an optional
     * inventory. Obtained from {@link #named(String)}; validated by {@link #build()}.
     */
    final class Builder {
        /** Creates the resource at its leaf. */
        @FunctionalInterface
        public interface Create {
            LeafResource create(CreateRequest request) throws LeafCallException;
        }

        /** Finds the resource at its leaf by natural key; empty if absent. */
        @FunctionalInterface
        public interface Find {
            Optional<LeafResource> find(String naturalKey) throws LeafCallException;
        }

        /** Deletes the resource; "already gone" is success (R2). */
        @FunctionalInterface
        public interface Delete {
            void delete(LeafResource resource) throws LeafCallException;
        }

        /** The leaf's inventory of this kind, for orphan reconciliation. */
        @FunctionalInterface
        public interface Inventory {
            List<LeafResource> list() throws LeafCallException;
        }

        private final String kind;
        private RepetitionSafety safety;
        private Create create;
        private Find find;
        private Delete delete;
        private Inventory inventory;

        Builder(String kind) {
            if (kind == null || kind.isBlank() || kind.length() > 200) {
                throw new IllegalArgumentException("a resource kind must be 1-200 characters");
            }
            this.kind = kind;
        }

        /** How the resource is created, and how safe that create is to repeat. */
        public Builder createdBy(RepetitionSafety createSafety, Create create) {
            this.safety = Objects.requireNonNull(createSafety, "createSafety");
            this.create = Objects.requireNonNull(create, "create");
            return this;
        }

        /** How the resource is found by natural key at its leaf (R6); without it, the type has no lookup. */
        public Builder findBy(Find find) {
            this.find = Objects.requireNonNull(find, "find");
            return this;
        }

        public Builder deletedBy(Delete delete) {
            this.delete = Objects.requireNonNull(delete, "delete");
            return this;
        }

        public Builder listedBy(Inventory inventory) {
            this.inventory = Objects.requireNonNull(inventory, "inventory");
            return this;
        }

        public ResourceType build() {
            if (create == null || delete == null) {
                throw new IllegalStateException("resource type " + kind + " needs createdBy(...) and deletedBy(...)");
            }
            if (find == null && safety == RepetitionSafety.IDEMPOTENT_BY_CONSTRAINT) {
                throw new IllegalStateException("resource type " + kind
                        + " is idempotent by constraint, which needs findBy(...): an existing resource is found, not created again");
            }
            return new Built(kind, safety, create, find, delete, inventory);
        }

        private record Built(String kind, RepetitionSafety safety, Create create, Find find, Delete delete,
                Inventory inventory) implements ResourceType {
            @Override
            public RepetitionSafety createSafety() {
                return safety;
            }

            @Override
            public LeafResource create(CreateRequest request) throws LeafCallException {
                return create.create(request);
            }

            @Override
            public Optional<LeafResource> find(String naturalKey) throws LeafCallException {
                if (find == null) {
                    return ResourceType.super.find(naturalKey);
                }
                return find.find(naturalKey);
            }

            @Override
            public boolean supportsLookup() {
                return find != null;
            }

            @Override
            public void delete(LeafResource resource) throws LeafCallException {
                delete.delete(resource);
            }

            @Override
            public List<LeafResource> list() throws LeafCallException {
                return inventory == null ? List.of() : inventory.list();
            }

            @Override
            public String toString() {
                return "resource type " + kind;
            }
        }
    }
}
