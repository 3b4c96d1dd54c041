package dev.converge.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** tenant create, tenant token create|list|revoke, tenant update and operator token create, as a person runs them. */
class TenantTokenCommandTest {
    @TempDir
    Path dir;

    private record Run(int exit, String out, String err) {
    }

    private Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void tokensOfEachScopeAreIssuedListedAndRevokedAndLimitsSet() {
        String db = "jdbc:h2:file:" + dir.resolve("store");
        Run created = run("tenant", "create", "Acme", "--db", db);
        assertThat(created.exit()).isZero();
        assertThat(created.out()).contains("tenant 1 (Acme)").containsPattern("token  cvt_[A-Za-z0-9_-]{43}");
        assertThat(created.err()).contains("scope service");

        Run agent = run("tenant", "token", "create", "--tenant", "1", "--scope", "agent", "--expires-in", "30d",
                "--label", "bot", "--db", db);
        assertThat(agent.exit()).isZero();
        assertThat(agent.out()).contains("scope agent").contains("expires").containsPattern("\ncvt_[A-Za-z0-9_-]{43}");
        assertThat(run("tenant", "token", "create", "--tenant", "1", "--scope", "root", "--db", db).exit()).isEqualTo(2);
        assertThat(run("tenant", "token", "create", "--tenant", "9", "--scope", "agent", "--db", db).exit()).isEqualTo(2);

        Run listed = run("tenant", "token", "list", "--tenant", "1", "--db", db);
        assertThat(listed.out()).contains("service").contains("agent").contains("bot").doesNotContain("cvt_");
        assertThat(run("tenant", "token", "revoke", "--tenant", "1", "--id", "2", "--db", db).exit()).isZero();
        assertThat(run("tenant", "token", "revoke", "--tenant", "1", "--id", "2", "--db", db).exit()).isEqualTo(1);
        assertThat(run("tenant", "token", "list", "--tenant", "1", "--db", db).out()).contains("revoked");

        Run updated = run("tenant", "update", "1", "--max-sites", "5", "--writes-per-minute", "60", "--db", db);
        assertThat(updated.exit()).isZero();
        assertThat(updated.out()).contains("sites 5").contains("writes a minute 60").contains("leads 10000");

        Run operator = run("operator", "token", "create", "--db", db);
        assertThat(operator.exit()).isZero();
        assertThat(operator.out()).contains("scope operator").containsPattern("cvo_[A-Za-z0-9_-]{43}");
    }

    @Test
    void tokensAreNamedByRandomPublicIds() {
        String db = "jdbc:h2:file:" + dir.resolve("ids");
        assertThat(run("tenant", "create", "Acme", "--db", db).exit()).isZero();
        assertThat(run("tenant", "create", "Other", "--db", db).exit()).isZero();
        Run agent = run("tenant", "token", "create", "--tenant", "1", "--scope", "agent", "--db", db);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("token (tok_[0-9a-f]{32}) \\(scope agent").matcher(agent.out());
        assertThat(m.find()).as(agent.out()).isTrue();
        String id = m.group(1);

        Run listed = run("tenant", "token", "list", "--tenant", "1", "--db", db);
        assertThat(listed.out().lines()).as(listed.out()).isNotEmpty().allMatch(l -> l.matches("tok_[0-9a-f]{32}\t.*"));
        assertThat(listed.out()).contains(id);

        assertThat(run("tenant", "token", "revoke", "--tenant", "2", "--id", id, "--db", db).exit())
                .as("not the other tenant's to revoke").isEqualTo(1);
        Run revoked = run("tenant", "token", "revoke", "--tenant", "1", "--id", id, "--db", db);
        assertThat(revoked.exit()).isZero();
        assertThat(revoked.out()).contains("token " + id + " revoked");
        assertThat(run("tenant", "token", "revoke", "--tenant", "1", "--id", "tok_nope", "--db", db).exit()).isEqualTo(2);
    }
}
