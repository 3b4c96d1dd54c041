package dev.converge.ledger;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Builds a {@link ResourceType} from a create, an optional lookup, a delete and an optional
 * inventory. Obtained from {@link ResourceType#named(String)}; validated by {@link #build()}.
 */
public final class ResourceTypeBuilder {
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

    ResourceTypeBuilder(String kind) {
        if (kind == null || kind.isBlank() || kind.length() > 200) {
            throw new IllegalArgumentException("a resource kind must be 1-200 characters");
        }
        this.kind = kind;
    }

    /** How the resource is created, and how safe that create is to repeat. */
    public ResourceTypeBuilder createdBy(RepetitionSafety createSafety, Create create) {
        this.safety = Objects.requireNonNull(createSafety, "createSafety");
        this.create = Objects.requireNonNull(create, "create");
        return this;
    }

    /** How the resource is found by natural key at its leaf (R6); without it, the type has no lookup. */
    public ResourceTypeBuilder findBy(Find find) {
        this.find = Objects.requireNonNull(find, "find");
        return this;
    }

    public ResourceTypeBuilder deletedBy(Delete delete) {
        this.delete = Objects.requireNonNull(delete, "delete");
        return this;
    }

    public ResourceTypeBuilder listedBy(Inventory inventory) {
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
