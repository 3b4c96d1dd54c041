package dev.converge.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.testkit.ScratchDatabase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * What a person gets when their surroundings are wrong: one or two lines saying what and why,
 * an exit code that says it failed, no stack trace, and never the database password.
 */
class CommandErrorsTest {

    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    @Test
    void aDatabaseThatDoesNotExistIsNamedWithoutAStackTrace() {
        // skips without a server, and fails under CI=true, like every PostgreSQL suite
        ScratchDatabase.create("cv_errprobe").close();
        int exit = run("migrate", "--db", "jdbc:postgresql://127.0.0.1:5432/cv_no_such_db");

        assertThat(exit).isEqualTo(1);
        assertThat(err.toString()).contains("migrate: ").contains("database \"cv_no_such_db\" does not exist")
                .doesNotContain("\tat ");
    }

    @Test
    void aFailureWithoutAMessageStillSaysWhatAndWhy() throws Exception {
        CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(err, true));
        int exit = Main.report(new RuntimeException(null, new java.sql.SQLException("connection refused")), cl, null);

        assertThat(exit).isEqualTo(1);
        assertThat(err.toString()).contains("converge: RuntimeException").contains("converge: because connection refused")
                .doesNotContain("\tat ");
    }

    @Test
    void anUnsupportedDatabaseIsABadValue() {
        int exit = run("migrate", "--db", "jdbc:mysql://127.0.0.1/x");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("unsupported database URL").doesNotContain("\tat ");
    }

    @Test
    void aWorkerWithoutHandlerThreadsIsRefusedBeforeItOpensAnything(@TempDir Path dir) {
        int exit = run("worker", "--concurrency", "0", "--db", "jdbc:h2:file:" + dir.resolve("store"));

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("--concurrency must be between 1 and 1000, was 0").doesNotContain("\tat ");
        assertThat(dir.resolve("store.mv.db")).as("no store was opened").doesNotExist();
    }

    @Test
    void aPurgeIntervalOutOfRangeIsRefusedBeforeItOpensAnything(@TempDir Path dir) {
        int exit = run("worker", "--purge-every", "500ms", "--db", "jdbc:h2:file:" + dir.resolve("store"));

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("--purge-every must be between 1s and 24h").doesNotContain("\tat ");
        assertThat(dir.resolve("store.mv.db")).as("no store was opened").doesNotExist();
    }

    @Test
    void anOrphanRemovalIntervalOutOfRangeOrContradictedIsRefusedBeforeItOpensAnything(@TempDir Path dir) {
        int exit = run("worker", "--remove-orphans-every", "500ms", "--db", "jdbc:h2:file:" + dir.resolve("store"));
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("--remove-orphans-every must be between 1s and 24h").doesNotContain("\tat ");

        err.getBuffer().setLength(0);
        exit = run("worker", "--keep-orphans", "--remove-orphans-every", "1m", "--db", "jdbc:h2:file:" + dir.resolve("store"));
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("--keep-orphans and --remove-orphans-every contradict each other")
                .doesNotContain("\tat ");
        assertThat(dir.resolve("store.mv.db")).as("no store was opened").doesNotExist();
    }

    @Test
    void aServiceWithoutLeafTokensIsRefusedBeforeItOpensAnythingUnlessDev(@TempDir Path dir) {
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv("CONVERGE_GITHOST_TOKEN") == null);
        int exit = run("worker", "--db", "jdbc:h2:file:" + dir.resolve("store"));

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("CONVERGE_GITHOST_TOKEN").contains("--dev").doesNotContain("\tat ");
        assertThat(dir.resolve("store.mv.db")).as("no store was opened").doesNotExist();
    }

    @Test
    void aDatabasePasswordInTheUrlIsRefused() {
        int exit = run("migrate", "--db", "jdbc:postgresql://127.0.0.1:5432/x?user=a&password=secret");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("CONVERGE_DB_PASSWORD").doesNotContain("secret");
    }

    @Test
    void aPortAlreadyTakenIsSaidPlainly(@TempDir Path dir) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            int exit = run("server", "--dev", "--port", String.valueOf(taken.getLocalPort()), "--db",
                    "jdbc:h2:file:" + dir.resolve("store"));

            assertThat(exit).isEqualTo(1);
            assertThat(err.toString()).contains("server: ").contains("Port already in use").doesNotContain("\tat ");
        }
    }

    @Test
    void connectionBoundsOutOfRangeAreRefusedBeforeAnythingOpens(@TempDir Path dir) throws Exception {
        int exit = run("server", "--dev", "--port", "0", "--address-share", "0", "--db", "jdbc:h2:file:" + dir.resolve("store"));
        assertThat(exit).isNotZero();
        assertThat(err.toString()).contains("--address-share must be a percentage between 1 and 100").doesNotContain("\tat ");

        err.getBuffer().setLength(0);
        exit = run("server", "--dev", "--port", "0", "--request-deadline", "20m", "--db", "jdbc:h2:file:" + dir.resolve("store"));
        assertThat(exit).isNotZero();
        assertThat(err.toString()).contains("--request-deadline must be between 100ms and 10m");
        assertThat(dir.resolve("store.mv.db")).as("no store opened").doesNotExist();
    }

    @Test
    void abuseSaysWhichTokensItNeeds() {
        CommandLine cl = new CommandLine(new AbuseCommand(name -> null));
        cl.setExecutionExceptionHandler(Main::report);
        cl.setErr(new PrintWriter(err, true));
        assertThat(cl.execute("--url", "http://127.0.0.1:1")).isNotZero();
        assertThat(err.toString()).contains("CONVERGE_TOKEN").contains("CONVERGE_NOISY_TOKEN")
                .contains("CONVERGE_OPERATOR_TOKEN").doesNotContain("\tat ");

        err.getBuffer().setLength(0);
        cl = new CommandLine(new AbuseCommand(name -> "cvt_" + name));
        cl.setExecutionExceptionHandler(Main::report);
        cl.setErr(new PrintWriter(err, true));
        assertThat(cl.execute("--only", "slow,bogus")).isNotZero();
        assertThat(err.toString()).contains("--only takes none, slow, tokens, methods, sites, noisy; got bogus");
    }
}
