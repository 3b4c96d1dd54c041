package dev.converge.cli;

import static dev.converge.provisioning.mcp.McpTestClients.call;
import static dev.converge.provisioning.mcp.McpTestClients.id;
import static dev.converge.provisioning.mcp.McpTestClients.structured;
import static dev.converge.provisioning.mcp.McpTestClients.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.cli.ApproveDeleteCommand;
import dev.converge.cli.PermitWelcomeCommand;
import dev.converge.provisioning.ProvisioningFixture;
import dev.converge.provisioning.access.Scope;
import dev.converge.provisioning.api.ApiOptions;
import dev.converge.provisioning.api.ApiServer;
import dev.converge.provisioning.approval.ApprovalRoutes;
import dev.converge.provisioning.lead.Lead;
import dev.converge.provisioning.mcp.McpEndpoint;
import dev.converge.provisioning.mcp.McpOptions;
import dev.converge.provisioning.mcp.McpTestClients;
import dev.converge.provisioning.site.SiteState;
import dev.converge.provisioning.tenant.Tenants;
import dev.converge.provisioning.validation.PublicId;
import dev.converge.queue.JobState;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * What an agent may not do freely: delete a site (a person's one-time approval, used once) and
 * resend the welcome email (a person's permission, one email each), end to end over HTTP.
 */
class McpApprovalFlowTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static ProvisioningFixture fixture;
    private static ApiServer api;

    @BeforeAll
    static void start() {
        fixture = new ProvisioningFixture();
        api = ApiServer.start(fixture.service(), ApiOptions.defaults(),
                List.of(new McpEndpoint(McpOptions.defaults()), new ApprovalRoutes()));
    }

    @AfterAll
    static void stop() {
        api.close();
        fixture.close();
    }

    private static HttpResponse<String> post(String path, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + path))
                .POST(HttpRequest.BodyPublishers.noBody());
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> json(HttpResponse<String> r) throws Exception {
        return JSON.readValue(r.body(), Map.class);
    }

    private static String token(Tenants.Created tenant, Scope scope) {
        return fixture.service().tenants().credentials().issue(tenant.tenant().id(), scope, null, "test").token();
    }

    private static long dbId(String publicId) {
        return fixture.service().store().withConnection(c -> {
            try (var ps = c.prepareStatement("SELECT id FROM pv_site WHERE public_id = ?")) {
                ps.setString(1, publicId);
                try (var rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
    }

    private static SiteState state(long tenantId, String siteId) {
        return fixture.service().sites().idOf(tenantId, new PublicId.Ref(siteId, 0))
                .flatMap(id -> fixture.service().sites().get(tenantId, id)).orElseThrow().state();
    }

    @Test
    void deleteSiteIsRefusedWithoutApprovalAndAMintedApprovalWorksOnceAndOnlyOnce() throws Exception {
        Tenants.Created owner = fixture.service().tenants().create("deleter");
        Tenants.Created other = fixture.service().tenants().create("stranger");
        Lead lead = fixture.service().leads().create(owner.tenant().id(), "Ada", "ada@example.com");
        String agent = token(owner, Scope.AGENT);
        String approver = token(owner, Scope.APPROVER);
        try (McpSyncClient client = McpTestClients.http(api.port(), agent);
                McpSyncClient stranger = McpTestClients.http(api.port(), token(other, Scope.AGENT))) {
            String site = id(structured(call(client, "create_site", Map.of("lead_id", lead.publicId(), "subdomain", "to-delete"))));

            McpSchema.CallToolResult refused = call(client, "delete_site", Map.of("site_id", site));
            assertThat(refused.isError()).isTrue();
            assertThat(structured(refused)).containsEntry("error", "approval_required");
            // the agent is told to ask a person, never which route or command would mint an approval
            assertThat((String) structured(refused).get("what_to_do")).contains("A person must approve", "Ask a person")
                    .doesNotContain("/v1/").doesNotContain("converge ").doesNotContain("token with");
            assertThat(text(refused)).doesNotContain("/v1/").doesNotContain("approve-delete");

            // the agent's own token cannot mint, delete, or permit by any route
            assertThat(post("/v1/sites/" + site + "/delete-approvals", agent).statusCode()).isEqualTo(403);
            assertThat(post("/v1/sites/" + site + "/welcome-resends", agent).statusCode()).isEqualTo(403);
            assertThat(HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port()
                    + "/v1/sites/" + site)).DELETE().header("Authorization", "Bearer " + agent).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(403);
            assertThat(post("/v1/sites/" + site + "/delete-approvals", owner.token()).statusCode())
                    .as("nor can the tenant's service token").isEqualTo(403);
            assertThat(structured(call(client, "delete_site", Map.of("site_id", site, "approval_token", "apv_made-up"))))
                    .containsEntry("error", "approval_invalid");
            assertThat(state(owner.tenant().id(), site)).isNotIn(SiteState.DELETING, SiteState.DELETED);

            assertThat(post("/v1/sites/" + site + "/delete-approvals", null).statusCode()).isEqualTo(401);
            assertThat(post("/v1/sites/first/delete-approvals", approver).statusCode()).isEqualTo(400);
            assertThat(post("/v1/sites/" + site + "/delete-approvals", token(other, Scope.APPROVER)).statusCode())
                    .as("not theirs").isEqualTo(404);
            HttpResponse<String> minted = post("/v1/sites/" + site + "/delete-approvals", approver);
            assertThat(minted.statusCode()).isEqualTo(201);
            String approval = (String) json(minted).get("approval_token");
            assertThat(json(minted)).containsEntry("action", "delete_site").containsKey("expires_at");

            McpSchema.CallToolResult wrongTenant = call(stranger, "delete_site", Map.of("site_id", site,
                    "approval_token", approval));
            assertThat(structured(wrongTenant)).as("another tenant's site is no site of theirs")
                    .containsEntry("error", "site_not_found");

            // several calls race with the one approval: exactly one deletes
            ExecutorService pool = Executors.newFixedThreadPool(4);
            List<Map<String, Object>> results = new ArrayList<>();
            try {
                CountDownLatch go = new CountDownLatch(1);
                List<Future<McpSchema.CallToolResult>> racing = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    racing.add(pool.submit(() -> {
                        go.await();
                        return call(client, "delete_site", Map.of("site_id", site, "approval_token", approval));
                    }));
                }
                go.countDown();
                for (Future<McpSchema.CallToolResult> f : racing) {
                    results.add(structured(f.get()));
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(results).filteredOn(r -> "deletion_started".equals(r.get("outcome"))).hasSize(1);
            assertThat(results).filteredOn(r -> "approval_used".equals(r.get("error"))).hasSize(3);
            Map<String, Object> receipt = results.stream().filter(r -> r.containsKey("outcome")).findFirst().orElseThrow();
            assertThat(receipt).containsEntry("site_id", site).containsEntry("status", "deleting");

            assertThat(structured(call(client, "delete_site", Map.of("site_id", site, "approval_token", approval))))
                    .containsEntry("error", "approval_used");
            await().atMost(Duration.ofSeconds(30)).until(() -> state(owner.tenant().id(), site) == SiteState.DELETED);
            assertThat(post("/v1/sites/" + site + "/delete-approvals", approver).statusCode()).isEqualTo(409);
        }
    }

    @Test
    void aPersonCanApproveFromTheCommandLineOverHttpWithTheApproverTokenFromTheEnvironment() {
        Tenants.Created owner = fixture.service().tenants().create("cli-approver");
        Lead lead = fixture.service().leads().create(owner.tenant().id(), "Ada", "cli@example.com");
        String approver = token(owner, Scope.APPROVER);
        String agent = token(owner, Scope.AGENT);
        try (McpSyncClient client = McpTestClients.http(api.port(), agent)) {
            String site = id(structured(call(client, "create_site", Map.of("lead_id", lead.publicId(), "subdomain", "cli-delete"))));
            String url = "http://127.0.0.1:" + api.port();

            StringWriter noEnvErr = new StringWriter();
            CommandLine missing = new CommandLine(new ApproveDeleteCommand(name -> null));
            missing.setErr(new PrintWriter(noEnvErr));
            assertThat(missing.execute("--url", url, "--site", site)).isEqualTo(2);
            assertThat(noEnvErr.toString()).contains("CONVERGE_APPROVER_TOKEN");
            CommandLine unknownSite = new CommandLine(new ApproveDeleteCommand(name -> approver));
            unknownSite.setErr(new PrintWriter(new StringWriter()));
            assertThat(unknownSite.execute("--url", url, "--site", "987654")).isEqualTo(1);
            // the agent's token at the desk: refused by the server, the scope named
            StringWriter agentErr = new StringWriter();
            CommandLine withAgent = new CommandLine(new ApproveDeleteCommand(name -> agent));
            withAgent.setErr(new PrintWriter(agentErr));
            assertThat(withAgent.execute("--url", url, "--site", site)).isEqualTo(2);
            assertThat(agentErr.toString()).contains("scope approver");

            StringWriter out = new StringWriter();
            CommandLine cli = new CommandLine(new ApproveDeleteCommand(
                    name -> name.equals("MY_TENANT_TOKEN") ? approver : null));
            cli.setOut(new PrintWriter(out));
            assertThat(cli.execute("--url", url, "--site", site, "--token-env", "MY_TENANT_TOKEN",
                    "--ttl", "2m"))
                    .isEqualTo(0);
            String approval = out.toString().lines().filter(l -> l.startsWith("apv_")).findFirst().orElseThrow();

            McpSchema.CallToolResult deleted = call(client, "delete_site", Map.of("site_id", site, "approval_token", approval));
            assertThat(deleted.isError()).as(text(deleted)).isFalse();
            assertThat(structured(deleted)).containsEntry("outcome", "deletion_started");
            assertThat(structured(call(client, "delete_site", Map.of("site_id", site, "approval_token", approval))))
                    .containsEntry("error", "approval_used");
        }
    }

    @Test
    void theWelcomeEmailIsResentOnlyWithAPersonsPermissionAndOncePerPermission() throws Exception {
        Tenants.Created owner = fixture.service().tenants().create("welcomer");
        Lead lead = fixture.service().leads().create(owner.tenant().id(), "Ada", "welcome@example.com");
        String approver = token(owner, Scope.APPROVER);
        try (McpSyncClient client = McpTestClients.http(api.port(), token(owner, Scope.AGENT))) {
            String site = id(structured(call(client, "create_site", Map.of("lead_id", lead.publicId(), "subdomain", "welcome-again"))));
            McpSchema.CallToolResult early = call(client, "send_welcome_email", Map.of("site_id", site));
            if (state(owner.tenant().id(), site) != SiteState.ACTIVE) {
                assertThat(structured(early)).containsEntry("error", "site_not_active");
            }
            await().atMost(Duration.ofSeconds(40)).until(() -> state(owner.tenant().id(), site) == SiteState.ACTIVE);
            await().atMost(Duration.ofSeconds(10)).until(() -> fixture.leaves().smtp().countForSite(Long.toString(dbId(site))) == 1);

            McpSchema.CallToolResult notPermitted = call(client, "send_welcome_email", Map.of("site_id", site));
            assertThat(notPermitted.isError()).isTrue();
            assertThat(structured(notPermitted)).containsEntry("error", "resend_not_permitted");
            assertThat((String) structured(notPermitted).get("what_to_do")).contains("Ask a person")
                    .doesNotContain("/v1/").doesNotContain("converge ");

            assertThat(post("/v1/sites/" + site + "/welcome-resends", approver).statusCode()).isEqualTo(201);
            Map<String, Object> queued = structured(call(client, "send_welcome_email", Map.of("site_id", site)));
            assertThat(queued).containsEntry("outcome", "queued").containsEntry("to", "welcome@example.com");
            Map<String, Object> again = structured(call(client, "send_welcome_email", Map.of("site_id", site)));
            assertThat(again).containsEntry("outcome", "already_queued").containsEntry("job_id", queued.get("job_id"));

            long job = ((Number) queued.get("job_id")).longValue();
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    fixture.service().engine().job(job).orElseThrow().state() == JobState.SUCCEEDED);
            assertThat(fixture.leaves().smtp().countForSite(Long.toString(dbId(site)))).isEqualTo(2);
            McpSchema.CallToolResult spent = call(client, "send_welcome_email", Map.of("site_id", site));
            assertThat(structured(spent)).containsEntry("error", "resend_not_permitted");
            assertThat(fixture.leaves().smtp().countForSite(Long.toString(dbId(site)))).isEqualTo(2);

            // a person may permit another from the command line, with the tenant token from the environment
            StringWriter out = new StringWriter();
            CommandLine cli = new CommandLine(new PermitWelcomeCommand(name -> approver));
            cli.setOut(new PrintWriter(out));
            assertThat(cli.execute("--url", "http://127.0.0.1:" + api.port(), "--site", site))
                    .isEqualTo(0);
            assertThat(out.toString()).contains("send_welcome_email");
            assertThat(structured(call(client, "send_welcome_email", Map.of("site_id", site))))
                    .containsEntry("outcome", "queued");
            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.leaves().smtp().countForSite(Long.toString(dbId(site))) == 3);
        }
    }
}
