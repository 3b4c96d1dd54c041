package dev.converge.provisioning.flow;

import dev.converge.ledger.AmbiguousOutcome;
import dev.converge.ledger.CreateRequest;
import dev.converge.ledger.LeafRejected;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.RepetitionSafety;
import dev.converge.ledger.ResourceExists;
import dev.converge.ledger.ResourceType;
import dev.converge.provisioning.leaf.LeafDriver;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A leaf driver seen by the ledger as a resource type, with every call timed and its outcome
 * counted ({@code converge_leaf_calls}: leaf, operation, outcome).
 */
final class DriverResourceType implements ResourceType {
    private final String kind;
    private final RepetitionSafety safety;
    private final LeafDriver driver;
    private final MeterRegistry meters;

    DriverResourceType(String kind, RepetitionSafety safety, LeafDriver driver, MeterRegistry meters) {
        this.kind = kind;
        this.safety = safety;
        this.driver = driver;
        this.meters = meters;
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
        return timed("create", () -> driver.create(r.naturalKey(), r.tag(), r.idempotencyKey()));
    }

    @Override
    public Optional<LeafResource> find(String naturalKey) {
        return timed("find", () -> driver.find(naturalKey));
    }

    @Override
    public void delete(LeafResource resource) {
        timed("delete", () -> {
            driver.delete(resource.leafId());
            return null;
        });
    }

    @Override
    public List<LeafResource> list() {
        return timed("list", driver::list);
    }

    <T> T timed(String operation, Supplier<T> call) {
        Timer.Sample sample = Timer.start(meters);
        String outcome = "success";
        try {
            return call.get();
        } catch (AmbiguousOutcome e) {
            outcome = "ambiguous";
            throw e;
        } catch (ResourceExists e) {
            outcome = "exists";
            throw e;
        } catch (LeafRejected e) {
            outcome = e.isTransient() ? "rejected_transient" : "rejected";
            throw e;
        } catch (RuntimeException e) {
            outcome = "error";
            throw e;
        } finally {
            sample.stop(Timer.builder("converge_leaf_calls").description("calls to leaf services")
                    .tag("leaf", driver.leaf()).tag("operation", operation).tag("outcome", outcome).register(meters));
        }
    }
}
