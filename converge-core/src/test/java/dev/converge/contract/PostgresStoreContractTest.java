package dev.converge.contract;

import dev.converge.store.Store;
import dev.converge.fixture.ScratchDatabase;
import dev.converge.fixture.TestStores;
import dev.converge.time.EngineClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The store contract on PostgreSQL, in a scratch database of its own dropped after the class. */
class PostgresStoreContractTest extends StoreContract {
    private static ScratchDatabase db;

    @BeforeAll
    static void createDatabase() {
        db = ScratchDatabase.create("cv_contract");
    }

    @AfterAll
    static void dropDatabase() {
        if (db != null) {
            db.close();
        }
    }

    @Override
    protected Store openStore(EngineClock clock) {
        return TestStores.postgres(db, true, clock, 8);
    }
}
