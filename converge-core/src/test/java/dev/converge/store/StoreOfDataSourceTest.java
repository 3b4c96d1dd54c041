package dev.converge.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.Converge;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** A store over the application's own pool: it migrates only when asked, and closing it leaves the pool alone. */
class StoreOfDataSourceTest {
    record Ping(int n) {
    }

    static final JobType<Ping> PING = JobType.of("of.ping", Ping.class);

    static JdbcDataSource h2(String name) {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        return ds;
    }

    static boolean tableExists(JdbcDataSource ds, String table) throws SQLException {
        try (Connection c = ds.getConnection(); ResultSet rs = c.getMetaData().getTables(null, null, null, null)) {
            while (rs.next()) {
                if (rs.getString("TABLE_NAME").equalsIgnoreCase(table)) {
                    return true;
                }
            }
            return false;
        }
    }

    @Test
    void appliesNoMigrationUntilAskedAndTellsWhereTheyAre() throws Exception {
        JdbcDataSource ds = h2("of_migrate");
        Store store = Store.of(ds);
        assertThat(tableExists(ds, "cv_job")).isFalse();
        assertThat(store.migrationLocation()).isEqualTo("classpath:db/converge/h2");
        store.migrate();
        assertThat(tableExists(ds, "cv_job")).isTrue();
        assertThat(tableExists(ds, Store.SCHEMA_HISTORY_TABLE)).isTrue();
        store.close();
        try (Connection c = ds.getConnection()) {
            assertThat(c.isValid(1)).as("the application's pool outlives the store").isTrue();
        }
    }

    @Test
    void runsJobsAndEnqueuesInsideTheCallersTransaction() throws Exception {
        JdbcDataSource ds = h2("of_run");
        CountDownLatch ran = new CountDownLatch(1);
        try (Store store = Store.of(ds)) {
            store.migrate();
            try (Converge engine = Converge.builder(store).queue("default", 1)
                    .handle(PING, (p, ctx) -> ran.countDown()).build().start()) {
                try (Connection c = ds.getConnection()) {
                    c.setAutoCommit(false);
                    try (Statement st = c.createStatement()) {
                        st.execute("CREATE TABLE orders (id INT PRIMARY KEY)");
                        st.execute("INSERT INTO orders VALUES (1)");
                    }
                    engine.enqueue(c, Job.of(PING, new Ping(1)));
                    c.rollback(); // the business row and its job vanish together
                    try (Statement st = c.createStatement()) {
                        st.execute("INSERT INTO orders VALUES (2)");
                    }
                    engine.enqueue(c, Job.of(PING, new Ping(2)));
                    c.commit();
                }
                assertThat(ran.await(20, TimeUnit.SECONDS)).isTrue();
                try (Connection c = ds.getConnection(); Statement st = c.createStatement();
                        ResultSet rs = st.executeQuery("SELECT payload FROM cv_job")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).contains("2");
                    assertThat(rs.next()).as("the rolled-back job was never stored").isFalse();
                }
            }
        }
    }

    @Test
    void refusesNoPoolClearly() {
        assertThatThrownBy(() -> Store.of(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("dataSource");
    }
}
