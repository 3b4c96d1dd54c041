package dev.converge.testkit;

import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import dev.converge.time.EngineClock;
import java.util.UUID;

/** Opens stores for tests: a private in-memory H2 database, or a PostgreSQL scratch database. */
public final class TestStores {
    private TestStores() {
    }

    /** A private in-memory H2 database, alive until the store is closed. */
    public static Store h2(boolean autoCommit, EngineClock clock) {
        String name = "cv" + UUID.randomUUID().toString().replace("-", "");
        return Store.open(StoreConfig.newBuilder()
                .url("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1")
                .autoCommit(autoCommit)
                .maxPoolSize(16)
                .clock(clock)
                .build());
    }

    /** A store on the given scratch database. */
    public static Store postgres(ScratchDatabase db, boolean autoCommit, EngineClock clock, int poolSize) {
        return Store.open(StoreConfig.postgres(db.url())
                .username(db.user())
                .autoCommit(autoCommit)
                .maxPoolSize(poolSize)
                .clock(clock)
                .build());
    }
}
