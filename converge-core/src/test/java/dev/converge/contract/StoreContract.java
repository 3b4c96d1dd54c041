package dev.converge.contract;

import dev.converge.store.Store;
import dev.converge.time.EngineClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The contract every store must pass: queue, leases, wake-up, claims, bad input and a small
 * cluster. Subclass it once per store (and per configuration worth covering, such as H2 with
 * auto-commit on and off) and say how to open a store:
 *
 * <pre>{@code
 * class MyStoreContractTest extends StoreContract {
 *     @Override
 *     protected Store openStore(EngineClock clock) {
 *         return Store.open(StoreConfig.postgres(url).clock(clock).build());
 *     }
 * }
 * }</pre>
 *
 * <p>Each call must open a new pool on the same database, which already may hold other tests'
 * rows: the suite empties {@code cv_job}, {@code cv_node} and {@code cv_claim} before each test. Leases and claims
 * expire by the given clock, which the suite moves; nothing in it sleeps to let time pass.
 */
public abstract class StoreContract
        implements QueueContract, EnqueueContract, BadInputContract, LeaseContract, WakeupContract, ClaimContract,
        ClusterContract, RollingDeployContract {
    private ContractFixture fixture;

    /** Opens a store on the database under test whose "now" comes from {@code clock}. */
    protected abstract Store openStore(EngineClock clock);

    @BeforeEach
    final void openFixture() {
        fixture = new ContractFixture(this::openStore);
    }

    @AfterEach
    final void closeFixture() {
        fixture.close();
    }

    @Override
    public ContractFixture fixture() {
        return fixture;
    }
}
