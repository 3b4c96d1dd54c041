package dev.converge.provisioning.flow;

import dev.converge.ledger.CreateRequest;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.RepetitionSafety;
import dev.converge.ledger.ResourceType;
import dev.converge.provisioning.leaf.LeafDriver;
import java.util.List;
import java.util.Optional;

/**
 * A leaf driver seen by the ledger as a resource type. Its calls are timed by the engine, which
 * makes them ({@code converge_leaf_call}: kind, operation, safety, outcome).
 */
final class DriverResourceType implements ResourceType {
    private final String kind;
    private final RepetitionSafety safety;
    private final LeafDriver driver;

    DriverResourceType(String kind, RepetitionSafety safety, LeafDriver driver) {
        this.kind = kind;
        this.safety = safety;
        this.driver = driver;
    }

    LeafDriver driver() {
        return driver;
    }

    @Override
    public String kind() {
        return kind;
    }

    @Override
    public RepetitionSafety createSafety() {
        return safety;
    }

    @Override
    public boolean supportsLookup() {
        return true;
    }

    @Override
    public LeafResource create(CreateRequest r) {
        return driver.create(r.naturalKey(), r.tag(), r.idempotencyKey());
    }

    @Override
    public Optional<LeafResource> find(String naturalKey) {
        return driver.find(naturalKey);
    }

    @Override
    public void delete(LeafResource resource) {
        driver.delete(resource.leafId());
    }

    @Override
    public List<LeafResource> list() {
        return driver.list();
    }
}
