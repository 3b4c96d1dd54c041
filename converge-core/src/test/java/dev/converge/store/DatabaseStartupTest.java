package dev.converge.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.fixture.ScratchDatabase;
import dev.converge.fixture.TcpRelay;
import java.net.URI;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A node started while its database restarts: opening the store waits for the database to come
 * back (here a relay to a real PostgreSQL that starts listening only later) and migrates then,
 * instead of failing; a database that answers with a refusal of its own fails at once.
 */
class DatabaseStartupTest {

    @Test
    void aStoreOpenedBeforeItsDatabaseListensWaitsForItAndMigrates() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_startup")) {
            int port = TcpRelay.freePort();
            URI real = URI.create(db.url().substring("jdbc:".length()));
            String relayed = "jdbc:postgresql://127.0.0.1:" + port + real.getPath();
            long started = System.nanoTime();
            CompletableFuture<Store> opening = CompletableFuture.supplyAsync(() -> Store.open(
                    StoreConfig.postgres(relayed).username(db.user()).connectionTimeout(Duration.ofSeconds(1))
                            .startupWait(Duration.ofSeconds(30)).build()));
            Thread.sleep(4000); // longer than the connection timeout: without the wait, opening has failed by now
            assertThat(opening).as("still waiting for the database").isNotDone();
            try (TcpRelay up = TcpRelay.start(port, real.getPort());
                    Store store = opening.get(30, TimeUnit.SECONDS)) {
                assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThan(Duration.ofSeconds(4));
                long tables = store.withConnection(c -> count(c, "SELECT COUNT(*) FROM information_schema.tables"
                        + " WHERE table_name = 'cv_job'"));
                assertThat(tables).as("migrated once the database answered").isEqualTo(1);
            }
        }
    }

    @Test
    void aDatabaseThatIsNotThereWhenTheWaitEndsFailsWithWhereItLooked() throws Exception {
        int port = TcpRelay.freePort();
        long started = System.nanoTime();
        assertThatThrownBy(() -> Store.open(StoreConfig.postgres("jdbc:postgresql://127.0.0.1:" + port + "/x?password=hunter2")
                .username("root").connectionTimeout(Duration.ofMillis(500)).startupWait(Duration.ofSeconds(3)).build()))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("cannot reach the database at jdbc:postgresql://127.0.0.1:" + port)
                .hasMessageContaining("waited up to 3 s")
                .hasMessageNotContaining("hunter2");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isBetween(Duration.ofSeconds(2), Duration.ofSeconds(10));
    }

    @Test
    void aDatabaseThatAnswersWithARefusalOfItsOwnFailsAtOnce() {
        long started = System.nanoTime();
        assertThatThrownBy(() -> Store.open(StoreConfig.postgres("jdbc:postgresql://127.0.0.1:5432/cv_no_such_database")
                .username("root").startupWait(Duration.ofSeconds(30)).build()))
                .hasStackTraceContaining("\"cv_no_such_database\" does not exist");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("not waited for").isLessThan(Duration.ofSeconds(10));
    }

    private static long count(Connection c, String sql) throws java.sql.SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
