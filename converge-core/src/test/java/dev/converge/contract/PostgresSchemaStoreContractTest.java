package dev.converge.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.fixture.ScratchDatabase;
import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import dev.converge.time.EngineClock;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The store contract on PostgreSQL with the engine's tables in a schema of their own: every
 * statement the contract makes the engine run must name it, since the connections' search path
 * does not (a bare {@code cv_job} fails there). After the class, the application's schema
 * ({@code public}) holds none of the engine's tables.
 */
class PostgresSchemaStoreContractTest extends StoreContract {
    static final String SCHEMA = "converge_engine";
    private static ScratchDatabase db;

    @BeforeAll
    static void createDatabase() {
        db = ScratchDatabase.create("cv_schema_contract");
    }

    @AfterAll
    static void engineTablesAreOnlyInTheirSchema() throws Exception {
        if (db == null) {
            return;
        }
        try (Connection c = DriverManager.getConnection(db.url(), db.user(), null); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT table_schema, table_name FROM information_schema.tables"
                        + " WHERE table_name LIKE 'cv\\_%' ORDER BY 1, 2")) {
            List<String> where = new ArrayList<>();
            while (rs.next()) {
                where.add(rs.getString(1) + "." + rs.getString(2));
            }
            assertThat(where).isNotEmpty().allMatch(t -> t.startsWith(SCHEMA + "."), "in " + SCHEMA);
            assertThat(where).contains(SCHEMA + ".cv_job", SCHEMA + "." + Store.SCHEMA_HISTORY_TABLE);
        } finally {
            db.close();
        }
    }

    @Override
    protected Store openStore(EngineClock clock) {
        return Store.open(StoreConfig.postgres(db.url()).username(db.user()).schema(SCHEMA).maxPoolSize(8).clock(clock)
                .build());
    }
}
