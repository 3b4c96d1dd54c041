package dev.converge.proof.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench scale} end to end on a real PostgreSQL with real child JVMs: two engine processes and two
 * reference processes over 2,000 jobs each, and a child that outlives no parent.
 *
 * <p>PostgreSQL at CONVERGE_PG_URL (default 127.0.0.1:5432, user root); unreachable fails the test when
 * CI=true and skips it elsewhere.
 */
class ScaleBenchTest {
    static final String SERVER = System.getenv().getOrDefault("CONVERGE_PG_URL",
            "jdbc:postgresql://127.0.0.1:5432/postgres");
    static final String USER = System.getenv().getOrDefault("CONVERGE_PG_USER", "root");

    @BeforeAll
    static void postgres() {
        try (Connection c = DriverManager.getConnection(SERVER, USER, null)) {
            c.isValid(3);
        } catch (SQLException e) {
            String why = "PostgreSQL is unreachable at " + SERVER + " as " + USER;
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                fail(why + " and CI=true");
            }
            Assumptions.abort(why);
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void twoProcessesProcessEveryJobExactlyOnceBesideTheReference() throws Exception {
        ScaleBench.Options options = new ScaleBench.Options(SERVER, USER, 2000, List.of(2), 4, 1, false);
        ScaleBenchResult result = new ScaleBench(options, msg -> { }).run();

        ScaleBenchResult.Run engine = result.find(1, 2, true);
        assertThat(engine.rows()).isEqualTo(2000);
        assertThat(engine.succeeded()).isEqualTo(2000);
        assertThat(engine.maxAttempt()).isEqualTo(1); // no job was leased twice
        assertThat(engine.handled()).isEqualTo(2000); // the two processes' handlers ran 2,000 times in all
        assertThat(engine.peakConnections()).isGreaterThanOrEqualTo(2);
        assertThat(engine.commitsPerJob()).isPositive();
        ScaleBenchResult.Run reference = result.find(1, 2, false);
        assertThat(reference.succeeded()).isEqualTo(2000);
        assertThat(reference.handled()).isEqualTo(2000);
        assertThat(reference.peakConnections()).isGreaterThanOrEqualTo(2);

        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        result.print(new PrintStream(printed, true, StandardCharsets.UTF_8));
        String row = printed.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("| 1 | 2 |"))
                .findFirst().orElseThrow();
        String[] cells = row.split("\\|");
        assertThat(Double.parseDouble(cells[3].trim().replace(",", ""))).isPositive(); // engine jobs/s
        assertThat(Double.parseDouble(cells[4].trim().replace(",", ""))).isPositive(); // reference jobs/s
        assertThat(Double.parseDouble(cells[5].trim())).isPositive(); // ratio
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("exactly once in every run (all succeeded, none "
                + "attempted twice, handled = enqueued): yes");
    }

    /** A parent killed outright (SIGKILL, no shutdown hook) leaves no child behind: the end of its input ends it. */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aChildDiesWithItsKilledParent(@TempDir Path dir) throws Exception {
        try (BenchDatabase db = BenchDatabase.create(true, SERVER, USER)) {
            dev.converge.store.Store.open(db.config().build()).close(); // the schema
            Process parent = new ProcessBuilder(javaBinary(), "-cp", System.getProperty("java.class.path"),
                    OrphanProbe.class.getName(), dir.resolve("child.log").toString(), db.url(), USER)
                    .redirectErrorStream(true).start();
            long childPid = -1;
            try (BufferedReader out = new BufferedReader(new InputStreamReader(parent.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line = out.readLine();
                assertThat(line).as("the probe's first line").startsWith("child ");
                childPid = Long.parseLong(line.substring("child ".length()));
                Optional<ProcessHandle> child = ProcessHandle.of(childPid);
                assertThat(child).isPresent();
                while (!Files.readString(dir.resolve("child.log")).contains(ScaleNode.READY)) {
                    assertThat(child.get().isAlive()).as("the child before it was ready").isTrue();
                    Thread.sleep(50);
                }
                parent.destroyForcibly().waitFor();
                assertThat(child.get().onExit().get(30, TimeUnit.SECONDS).isAlive()).isFalse();
            } finally {
                parent.destroyForcibly();
                if (childPid > 0) {
                    ProcessHandle.of(childPid).ifPresent(ProcessHandle::destroyForcibly);
                }
            }
        }
    }

    private static String javaBinary() {
        return ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString());
    }
}
