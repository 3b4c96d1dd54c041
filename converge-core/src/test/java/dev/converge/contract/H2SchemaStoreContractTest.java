package dev.converge.contract;

import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import dev.converge.time.EngineClock;
import java.util.UUID;

/** The store contract on embedded H2 with the engine's tables in a schema of their own. */
class H2SchemaStoreContractTest extends StoreContract {
    private final String url = "jdbc:h2:mem:contract_" + UUID.randomUUID().toString().replace("-", "");

    @Override
    protected Store openStore(EngineClock clock) {
        return Store.open(StoreConfig.newBuilder().url(url).schema("converge_engine").maxPoolSize(16).clock(clock).build());
    }
}
