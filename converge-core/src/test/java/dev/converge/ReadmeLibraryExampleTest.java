package dev.converge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.store.Store;
import java.sql.Connection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** The README's "Use it as a library", plain Java, as written there, so the page cannot drift from the engine. */
class ReadmeLibraryExampleTest {
    final List<String> sent = new CopyOnWriteArrayList<>();

    void send(String email) {
        sent.add(email);
    }

    @Test
    void theReadmeSnippetRunsTwoJobs() throws Exception {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:readme;DB_CLOSE_DELAY=-1");
        DataSource dataSource = h2;
        ReadmeLibraryExampleTest mailer = this;
        Connection connection = dataSource.getConnection();
        connection.setAutoCommit(false);

        record Welcome(String email) {}
        JobType<Welcome> WELCOME = JobType.of("welcome", Welcome.class);

        Store store = Store.of(dataSource);     // your pool: Converge never closes it
        store.migrate();                        // or run store.migrationLocation() with your own Flyway
        Converge engine = Converge.builder(store)
                .queue("default", 4)
                .handle(WELCOME, (w, ctx) -> mailer.send(w.email()))
                .build().start();

        engine.enqueue(WELCOME, new Welcome("ada@example.com"));              // a unit of work of its own
        engine.enqueue(connection, Job.of(WELCOME, new Welcome("ada@...")));  // or inside your transaction
        connection.commit();
        connection.close();

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (sent.size() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        engine.close();
        assertThat(sent).containsExactlyInAnyOrder("ada@example.com", "ada@...");
    }
}
