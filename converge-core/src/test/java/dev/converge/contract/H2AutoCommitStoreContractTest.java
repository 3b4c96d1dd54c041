package dev.converge.contract;

import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import dev.converge.time.EngineClock;
import java.util.UUID;

/** The store contract on embedded H2 whose pool auto-commits. */
class H2AutoCommitStoreContractTest extends StoreContract {
    private final String url = "jdbc:h2:mem:contract_" + UUID.randomUUID().toString().replace("-", "");

    @Override
    protected Store openStore(EngineClock clock) {
        return Store.open(StoreConfig.newBuilder().url(url).autoCommit(true).maxPoolSize(16).clock(clock).build());
    }
}
