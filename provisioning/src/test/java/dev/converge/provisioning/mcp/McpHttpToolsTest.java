package dev.converge.provisioning.mcp;

import static dev.converge.provisioning.mcp.McpTestClients.call;
import static dev.converge.provisioning.mcp.McpTestClients.id;
import static dev.converge.provisioning.mcp.McpTestClients.structured;
import static dev.converge.provisioning.mcp.McpTestClients.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.provisioning.ProvisioningFixture;
import dev.converge.provisioning.api.ApiOptions;
import dev.converge.provisioning.api.ApiServer;
import dev.converge.provisioning.approval.ApprovalRoutes;
import dev.converge.provisioning.lead.Lead;
import dev.converge.provisioning.access.Scope;
import dev.converge.provisioning.tenant.Tenants;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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

/** The tools over streamable HTTP on the real API server, called with the MCP SDK's own client. */
class McpHttpToolsTest {
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

    /** A tenant, a lead of it, and the agent token an AI agent of that tenant holds. */
    private record Account(Tenants.Created tenant, Lead lead, String agentToken) {
        String token() {
            return agentToken;
        }
    }

    private static Account account(String name) {
        Tenants.Created t = fixture.service().tenants().create(name);
        String agent = fixture.service().tenants().credentials().issue(t.tenant().id(), Scope.AGENT, null, "agent").token();
        return new Account(t, fixture.service().leads().create(t.tenant().id(), "Ada", name + "@example.com"), agent);
    }

    private static long sitesWithSubdomain(String subdomain) {
        return fixture.service().store().withConnection(c -> {
            try (var ps = c.prepareStatement("SELECT COUNT(*) FROM pv_site WHERE subdomain = ?")) {
                ps.setString(1, subdomain);
                try (var rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
    }

    @Test
    void withoutAValidTenantTokenMcpAnswers401() throws Exception {
        String init = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                + "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";
        HttpClient http = HttpClient.newHttpClient();
        for (String auth : new String[] {null, "Bearer cvt_not-a-token", "Basic abc"}) {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + "/mcp"))
                    .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                    .POST(HttpRequest.BodyPublishers.ofString(init));
            if (auth != null) {
                b.header("Authorization", auth);
            }
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(String.valueOf(auth)).isEqualTo(401);
            assertThat(r.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
            assertThat(r.body()).contains("unauthorized").doesNotContain("jsonrpc");
        }
        assertThatThrownBy(() -> McpTestClients.http(api.port(), "cvt_wrong")).isInstanceOf(RuntimeException.class);

        // a tenant's service or approver token is not an agent's: 403 naming the scope, before any MCP
        Tenants.Created t = fixture.service().tenants().create("not-an-agent");
        String approver = fixture.service().tenants().credentials().issue(t.tenant().id(), Scope.APPROVER, null, "p").token();
        for (String token : new String[] {t.token(), approver}) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + "/mcp"))
                    .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                    .header("Authorization", "Bearer " + token).POST(HttpRequest.BodyPublishers.ofString(init)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(403);
            assertThat(r.body()).contains("insufficient-scope").contains("\"required_scopes\":[\"agent\"]")
                    .doesNotContain("jsonrpc");
        }
    }

    @Test
    void theToolListDeclaresEachToolsRepetitionSafetyInItsAnnotations() {
        Account a = account("list");
        try (McpSyncClient client = McpTestClients.http(api.port(), a.token())) {
            assertThat(client.getServerInstructions()).contains("use the window stated in your instructions");
            Map<String, McpSchema.Tool> tools = new java.util.LinkedHashMap<>();
            client.listTools().tools().forEach(t -> tools.put(t.name(), t));
            assertThat(tools).containsOnlyKeys("check_url", "suggest_palettes", "create_site", "get_site_status",
                    "send_welcome_email", "delete_site");
            // name -> readOnly, idempotent, destructive
            Map<String, List<Boolean>> expected = Map.of(
                    "check_url", List.of(true, true, false),
                    "suggest_palettes", List.of(true, true, false),
                    "get_site_status", List.of(true, true, false),
                    "create_site", List.of(false, true, false),
                    "send_welcome_email", List.of(false, true, false),
                    "delete_site", List.of(false, false, true));
            expected.forEach((name, hints) -> {
                McpSchema.ToolAnnotations an = tools.get(name).annotations();
                assertThat(List.of(an.readOnlyHint(), an.idempotentHint(), an.destructiveHint())).as(name).isEqualTo(hints);
            });
            assertThat(tools.get("create_site").inputSchema()).containsEntry("required", List.of("lead_id", "subdomain"));
            assertThat(tools.get("delete_site").description()).contains("only a person").doesNotContain("/v1/", "approve-delete");
            assertThat(tools.get("create_site").description()).contains("idempotent_by_constraint");
            assertThat(tools.get("send_welcome_email").description()).contains("idempotent_by_token");
        }
    }

    @Test
    void createSiteCalledAgainForTheSameSubdomainAndLeadConvergesOnOneSite() throws Exception {
        Account a = account("twice");
        Map<String, Object> args = Map.of("lead_id", a.lead().id(), "subdomain", "ada-twice");
        try (McpSyncClient client = McpTestClients.http(api.port(), a.token())) {
            McpSchema.CallToolResult first = call(client, "create_site", args);
            assertThat(first.isError()).as(text(first)).isFalse();
            Map<String, Object> receipt = structured(first);
            assertThat(receipt).containsEntry("outcome", "created").containsEntry("status", "provisioning")
                    .containsEntry("expected_url", "https://ada-twice.sites.example");
            assertThat((String) receipt.get("subscription_deadline")).as("configured trial").isNotBlank();
            assertThat((List<?>) receipt.get("next_steps")).isNotEmpty();
            assertThat(text(first)).contains("\"site_id\"");

            McpSchema.CallToolResult second = call(client, "create_site", args);
            assertThat(second.isError()).isFalse();
            assertThat(structured(second)).containsEntry("outcome", "already_requested");
            assertThat(id(structured(second))).isEqualTo(id(receipt));

            // and the same when the calls race
            ExecutorService pool = Executors.newFixedThreadPool(6);
            try {
                CountDownLatch go = new CountDownLatch(1);
                List<Future<McpSchema.CallToolResult>> racing = new ArrayList<>();
                for (int i = 0; i < 6; i++) {
                    racing.add(pool.submit(() -> {
                        go.await();
                        return call(client, "create_site", Map.of("lead_id", a.lead().id(), "subdomain", "ada-race"));
                    }));
                }
                go.countDown();
                List<Map<String, Object>> results = new ArrayList<>();
                for (Future<McpSchema.CallToolResult> f : racing) {
                    McpSchema.CallToolResult r = f.get();
                    assertThat(r.isError()).as(text(r)).isFalse();
                    results.add(structured(r));
                }
                assertThat(results).extracting(McpTestClients::id).containsOnly(id(results.get(0)));
                assertThat(results).filteredOn(r -> r.get("outcome").equals("created")).hasSize(1);
            } finally {
                pool.shutdownNow();
            }
        }
        assertThat(sitesWithSubdomain("ada-twice")).isEqualTo(1);
        assertThat(sitesWithSubdomain("ada-race")).isEqualTo(1);
    }

    @Test
    void aSubdomainTakenBySomeoneElseIsAnActionableToolError() {
        Account owner = account("owner");
        Account other = account("other");
        try (McpSyncClient a = McpTestClients.http(api.port(), owner.token());
                McpSyncClient b = McpTestClients.http(api.port(), other.token())) {
            assertThat(call(a, "create_site", Map.of("lead_id", owner.lead().id(), "subdomain", "taken-one")).isError())
                    .isFalse();
            McpSchema.CallToolResult r = call(b, "create_site", Map.of("lead_id", other.lead().id(), "subdomain", "taken-one"));
            assertThat(r.isError()).isTrue();
            assertThat(structured(r)).containsEntry("error", "subdomain_taken").containsEntry("subdomain", "taken-one");
            assertThat((String) structured(r).get("what_to_do")).contains("different subdomain", "check_url");
            assertThat(text(r)).contains("taken", "different subdomain");

            Lead second = fixture.service().leads().create(owner.tenant().tenant().id(), "Bob", "bob@example.com");
            McpSchema.CallToolResult sameTenant = call(a, "create_site", Map.of("lead_id", second.id(), "subdomain", "taken-one"));
            assertThat(structured(sameTenant)).containsEntry("error", "subdomain_taken");

            Map<String, Object> free = structured(call(b, "check_url", Map.of("subdomain", "taken-one")));
            assertThat((Map<String, Object>) free.get("subdomain")).containsEntry("free", false).doesNotContainKey("your_site_id");
        }
        assertThat(sitesWithSubdomain("taken-one")).isEqualTo(1);
    }

    @Test
    void invalidArgumentsAreToolErrorsNamingTheField() {
        Account a = account("invalid");
        Account other = account("invalid-other");
        try (McpSyncClient client = McpTestClients.http(api.port(), a.token())) {
            assertInvalid(call(client, "create_site", Map.of("lead_id", "seven", "subdomain", "ada-x")), "lead_id");
            assertInvalid(call(client, "create_site", Map.of("lead_id", a.lead().id())), "subdomain");
            assertInvalid(call(client, "create_site", Map.of("lead_id", a.lead().id(), "subdomain", "www")), "subdomain");
            assertInvalid(call(client, "create_site", Map.of("lead_id", other.lead().id(), "subdomain", "not-my-lead")),
                    "lead_id");
            assertInvalid(call(client, "get_site_status", Map.of("site_id", -1)), "site_id");
            assertInvalid(call(client, "check_url", Map.of()), "subdomain");
            assertInvalid(call(client, "check_url", Map.of("url", "file:///etc/passwd")), "url");
            assertInvalid(call(client, "suggest_palettes", Map.of("brand_name", "Ada", "count", 9)), "count");
        }
        assertThat(sitesWithSubdomain("not-my-lead")).isZero();
    }

    private static void assertInvalid(McpSchema.CallToolResult r, String field) {
        assertThat(r.isError()).as(text(r)).isTrue();
        assertThat(structured(r)).containsEntry("error", "invalid_argument").containsEntry("field", field);
        assertThat(text(r)).contains(field);
    }

    @Test
    void everyCallIsScopedToTheTenantOfItsToken() {
        Account a = account("scope-a");
        Account b = account("scope-b");
        try (McpSyncClient ca = McpTestClients.http(api.port(), a.token());
                McpSyncClient cb = McpTestClients.http(api.port(), b.token())) {
            String site = id(structured(call(ca, "create_site", Map.of("lead_id", a.lead().publicId(), "subdomain", "scoped-a"))));
            assertThat(structured(call(ca, "get_site_status", Map.of("site_id", site)))).containsEntry("subdomain", "scoped-a");
            McpSchema.CallToolResult foreign = call(cb, "get_site_status", Map.of("site_id", site));
            assertThat(foreign.isError()).isTrue();
            assertThat(structured(foreign)).containsEntry("error", "site_not_found");
            Map<String, Object> mine = structured(call(ca, "check_url", Map.of("subdomain", "scoped-a")));
            assertThat((Map<String, Object>) mine.get("subdomain")).containsEntry("your_site_id", site);
        }
    }

    @Test
    void readOnlyToolsAnswerTheSameEveryTimeAndCheckOnlyOurOwnSites() {
        Account a = account("readonly");
        try (McpSyncClient client = McpTestClients.http(api.port(), a.token())) {
            Map<String, Object> args = Map.of("brand_name", "Ada's Bakery", "count", 4);
            Map<String, Object> palettes = structured(call(client, "suggest_palettes", args));
            assertThat((List<?>) palettes.get("palettes")).hasSize(4);
            assertThat(structured(call(client, "suggest_palettes", args))).isEqualTo(palettes);

            McpSchema.CallToolResult elsewhere = call(client, "check_url", Map.of("url", "http://169.254.169.254/latest"));
            assertThat(elsewhere.isError()).isTrue();
            assertThat(structured(elsewhere)).containsEntry("error", "url_not_allowed");
            Map<String, Object> free = structured(call(client, "check_url", Map.of("subdomain", "nobody-has-this")));
            assertThat((Map<String, Object>) free.get("subdomain")).containsEntry("free", true);
        }
    }
}
