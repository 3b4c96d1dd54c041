package dev.converge.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.provisioning.api.ApiClient;
import dev.converge.provisioning.api.ApiHarness;
import dev.converge.provisioning.tenant.Tenants;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code converge hand}: a person's retry and cancel from a shell, over the HTTP API, with the
 * operator token taken from the environment (never a flag), a reason required, and "nothing was
 * done" said (exit 3) when the target no longer waits for a person.
 */
class HandCommandTest {

    @Test
    void cancelJobAndRetryFlowSpeakToTheApiWithTheOperatorTokenFromTheEnvironment() {
        try (ApiHarness api = new ApiHarness()) {
            String operator = api.operatorToken();
            String url = "http://127.0.0.1:" + api.server.port();
            StringWriter err = new StringWriter();

            long waiting = idleJob(api);
            picocli.CommandLine cancel = new picocli.CommandLine(new HandCommand.CancelJob(
                    name -> name.equals("CONVERGE_OPERATOR_TOKEN") ? operator : null));
            cancel.setErr(new PrintWriter(err));
            assertThat(cancel.execute("--url", url, "--token-env", "CONVERGE_OPERATOR_TOKEN", "--id", Long.toString(waiting),
                    "--reason", "from the shell")).isZero();
            assertThat(api.service().engine().job(waiting).orElseThrow().state().sql()).isEqualTo("cancelled");
            assertThat(cancel.execute("--url", url, "--token-env", "CONVERGE_OPERATOR_TOKEN", "--id", Long.toString(waiting),
                    "--reason", "again")).as("not waiting any more").isEqualTo(3);
            assertThat(err.toString()).contains("nothing was cancelled");

            Tenants.Created tenant = api.tenant();
            String lead = api.lead(tenant.token());
            ApiClient.Reply created = api.client.postSite(tenant.token(), "hand-cli-1",
                    ApiHarness.siteBody(lead, ApiHarness.subdomain("handcli")));
            assertThat(created.status()).as(created.toString()).isEqualTo(202);
            long siteId = api.siteDbId(created.json().get("site_id").asText());
            long tenantId = tenant.tenant().id();
            Long flowId = await().atMost(Duration.ofSeconds(30)).until(
                    () -> api.service().sites().get(tenantId, siteId).orElseThrow().provisionFlowId(), id -> id != null);
            picocli.CommandLine retry = new picocli.CommandLine(new HandCommand.RetryFlow(
                    name -> name.equals("CONVERGE_OPERATOR_TOKEN") ? operator : null));
            retry.setErr(new PrintWriter(err));
            assertThat(retry.execute("--url", url, "--token-env", "CONVERGE_OPERATOR_TOKEN", "--id", Long.toString(flowId)))
                    .as("--reason is required").isEqualTo(2);
            assertThat(retry.execute("--url", url, "--token-env", "CONVERGE_OPERATOR_TOKEN", "--id", Long.toString(flowId),
                    "--reason", "once more")).as("the flow does not need attention").isEqualTo(3);
            assertThat(err.toString()).contains("nothing was retried");
        }
    }

    @Test
    void eachCommandReadsTheTokenItNeedsAndSaysWhichWhenItIsMissing() {
        StringWriter err = new StringWriter();
        for (Object operatorCommand : new Object[] {new HandCommand.RetryJob(name -> null),
                new HandCommand.CancelJob(name -> null), new HandCommand.RetryFlow(name -> null)}) {
            picocli.CommandLine cl = new picocli.CommandLine(operatorCommand);
            cl.setErr(new PrintWriter(err));
            assertThat(cl.execute("--url", "http://127.0.0.1:1", "--id", "7", "--reason", "r")).isEqualTo(2);
        }
        assertThat(err.toString()).contains("set CONVERGE_OPERATOR_TOKEN to the operator token")
                .doesNotContain("APPROVER");
        StringWriter siteErr = new StringWriter();
        picocli.CommandLine site = new picocli.CommandLine(new HandCommand.RetrySite(name -> null));
        site.setErr(new PrintWriter(siteErr));
        assertThat(site.execute("--url", "http://127.0.0.1:1", "--site", "7", "--reason", "r")).isEqualTo(2);
        assertThat(siteErr.toString()).contains("set CONVERGE_APPROVER_TOKEN to your tenant's approver token");

        // with the operator token set where the command looks by default, it goes on (to an unreachable server here)
        StringWriter reached = new StringWriter();
        picocli.CommandLine retry = new picocli.CommandLine(new HandCommand.RetryJob(
                name -> name.equals("CONVERGE_OPERATOR_TOKEN") ? "cvo_x" : null));
        retry.setErr(new PrintWriter(reached));
        assertThat(retry.execute("--url", "http://127.0.0.1:1", "--id", "7", "--reason", "r")).isEqualTo(1);
        assertThat(reached.toString()).contains("cannot reach the server");
    }

    /** A job no worker takes (its queue is nobody's), waiting; its id. */
    private static long idleJob(ApiHarness api) {
        return api.sql(c -> {
            try (var ps = c.prepareStatement("INSERT INTO cv_job (queue, kind, payload, state, run_at, max_attempts, "
                    + "created_at) VALUES ('nobodys-queue', 'hand.idle', '{}', 'available', CURRENT_TIMESTAMP, 1, "
                    + "CURRENT_TIMESTAMP)", new String[] {"id"})) {
                ps.executeUpdate();
                try (var rs = ps.getGeneratedKeys()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
    }
}
