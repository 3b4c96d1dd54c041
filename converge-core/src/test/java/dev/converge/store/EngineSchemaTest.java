package dev.converge.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.converge.Converge;
import dev.converge.fixture.ScratchDatabase;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.time.EngineClock;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The engine's tables in a schema of the application's choosing, on the application's own pool:
 * the application's tables stay where its connections put them, and a job enqueued in the
 * application's transaction commits or rolls back with the application's rows.
 */
class EngineSchemaTest {
    record Welcome(String email) {
    }

    static final JobType<Welcome> WELCOME = JobType.of("schema.welcome", Welcome.class);

    @Test
    void theEnginesTablesGoInTheChosenSchemaAndTheEnqueueStillJoinsTheApplicationsTransaction() throws Exception {
        List<String> sent = new CopyOnWriteArrayList<>();
        try (ScratchDatabase db = ScratchDatabase.create("cv_engine_schema");
                HikariDataSource dataSource = pool(db)) {
            Store store = Store.of(dataSource, EngineClock.database(), "converge");
            store.migrate();                        // creates the schema "converge" and the engine's tables in it
            try (Converge engine = Converge.builder(store).queue("default", 2)
                    .queues(q -> q.poll(Duration.ofMillis(100)))
                    .handle(WELCOME, (w, ctx) -> sent.add(w.email())).build().start()) {
                try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
                    st.execute("CREATE TABLE signup (email TEXT PRIMARY KEY)"); // the application's, in public
                    c.setAutoCommit(false);
                    st.execute("INSERT INTO signup VALUES ('rolled@back')");
                    engine.enqueue(c, Job.of(WELCOME, new Welcome("rolled@back")));
                    c.rollback();
                    st.execute("INSERT INTO signup VALUES ('ada@example.com')");
                    engine.enqueue(c, Job.of(WELCOME, new Welcome("ada@example.com")));
                    c.commit();
                }
                await().atMost(Duration.ofSeconds(20)).until(() -> sent.contains("ada@example.com"));
                assertThat(sent).containsExactly("ada@example.com");
            }
            assertThat(tables(dataSource)).contains("converge.cv_job", "converge.cv_flow", "converge.cv_ledger",
                            "converge." + Store.SCHEMA_HISTORY_TABLE, "public.signup")
                    .allMatch(t -> t.startsWith("converge.") || t.equals("public.signup"));
        }
    }

    @Test
    void aSchemaThatIsNotAPlainLowerCaseNameIsRefused() {
        for (String bad : List.of("Converge", "1st", "con-verge", "a;drop table x", "x".repeat(64), "")) {
            assertThatThrownBy(() -> StoreConfig.newBuilder().schema(bad), bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("schema must be a lower-case SQL name");
        }
        assertThat(StoreConfig.newBuilder().url("jdbc:h2:mem:x").schema("converge_2").build().schema())
                .isEqualTo("converge_2");
    }

    @Test
    void onH2TheSchemaWorksTheSame() {
        List<String> sent = new CopyOnWriteArrayList<>();
        try (Store store = Store.open(StoreConfig.newBuilder().url("jdbc:h2:mem:engine_schema;DB_CLOSE_DELAY=-1")
                .schema("converge").build());
                Converge engine = Converge.builder(store).queue("default", 1).queues(q -> q.poll(Duration.ofMillis(50)))
                        .handle(WELCOME, (w, ctx) -> sent.add(w.email())).build().start()) {
            engine.enqueue(WELCOME, new Welcome("h2@example.com"));
            await().atMost(Duration.ofSeconds(10)).until(() -> sent.contains("h2@example.com"));
            long inSchema = store.withConnection(c -> {
                try (Statement st = c.createStatement();
                        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM CONVERGE.CV_JOB")) {
                    rs.next();
                    return rs.getLong(1);
                }
            });
            assertThat(inSchema).isEqualTo(1);
        }
    }

    private static HikariDataSource pool(ScratchDatabase db) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.url());
        config.setUsername(db.user());
        config.setMaximumPoolSize(6);
        return new HikariDataSource(config);
    }

    private static List<String> tables(DataSource dataSource) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT table_schema || '.' || table_name FROM information_schema.tables"
                        + " WHERE table_schema NOT IN ('pg_catalog', 'information_schema')")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
