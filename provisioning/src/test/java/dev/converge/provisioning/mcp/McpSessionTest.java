package dev.converge.provisioning.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.provisioning.ProvisioningFixture;
import dev.converge.provisioning.access.Scope;
import dev.converge.provisioning.api.ApiOptions;
import dev.converge.provisioning.api.ApiServer;
import dev.converge.provisioning.tenant.Tenants;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** An MCP session belongs to the tenant that initialised it, a tenant's sessions are capped, and they expire. */
class McpSessionTest {
    private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
            + "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";
    private static final String LIST = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}";
    private static ProvisioningFixture fixture;
    private static ApiServer api;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void start() {
        fixture = new ProvisioningFixture();
        api = ApiServer.start(fixture.service(), ApiOptions.defaults(),
                List.of(new McpEndpoint(McpOptions.defaults().withSessions(2, Duration.ofSeconds(2)))));
    }

    @AfterAll
    static void stop() {
        api.close();
        fixture.close();
    }

    private static String agent(String name) {
        Tenants.Created t = fixture.service().tenants().create(name);
        return fixture.service().tenants().credentials().issue(t.tenant().id(), Scope.AGENT, null, "a").token();
    }

    private HttpResponse<String> post(String token, String session, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + "/mcp"))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .header("Authorization", "Bearer " + token).POST(HttpRequest.BodyPublishers.ofString(body));
        if (session != null) {
            b.header("Mcp-Session-Id", session);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String open(String token) throws Exception {
        HttpResponse<String> r = post(token, null, INIT);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return r.headers().firstValue("Mcp-Session-Id").orElseThrow();
    }

    @Test
    void transportErrorsAreShortJsonRpcErrorsWithNothingInternal() throws Exception {
        String a = agent("transport-errors");
        String session = open(a);
        URI mcp = URI.create("http://127.0.0.1:" + api.port() + "/mcp");
        List<HttpResponse<String>> answers = List.of(
                post(a, session, "{not json"),
                http.send(HttpRequest.newBuilder(mcp).header("Content-Type", "application/json")
                        .header("Authorization", "Bearer " + a).header("Mcp-Session-Id", session)
                        .POST(HttpRequest.BodyPublishers.ofString(LIST)).build(), HttpResponse.BodyHandlers.ofString()),
                http.send(HttpRequest.newBuilder(mcp).header("Content-Type", "text/plain")
                        .header("Accept", "application/json, text/event-stream").header("Authorization", "Bearer " + a)
                        .POST(HttpRequest.BodyPublishers.ofString("hello")).build(), HttpResponse.BodyHandlers.ofString()));
        for (HttpResponse<String> r : answers) {
            assertThat(r.statusCode()).as(r.body()).isBetween(400, 499);
            assertThat(r.body()).as("a short JSON-RPC error").contains("\"jsonrpc\":\"2.0\"").contains("\"error\"")
                    .contains("\"code\"").doesNotContain("stackTrace").doesNotContain("java.").doesNotContain("Exception")
                    .doesNotContain("jetty");
            assertThat(r.body().length()).as(r.body()).isLessThan(400);
        }
    }

    @Test
    void anotherTenantsSessionIdIsRefusedAndTheOwnersWorks() throws Exception {
        String a = agent("session-a");
        String b = agent("session-b");
        String session = open(a);
        HttpResponse<String> stolen = post(b, session, LIST);
        assertThat(stolen.statusCode()).isEqualTo(404);
        assertThat(stolen.body()).doesNotContain("tools");
        HttpResponse<String> own = post(a, session, LIST);
        assertThat(own.statusCode()).isEqualTo(200);
        assertThat(own.body()).contains("create_site");
    }

    @Test
    void aTenantsSessionsAreCappedAndExpire() throws Exception {
        String a = agent("session-cap");
        String first = open(a);
        open(a);
        HttpResponse<String> third = post(a, null, INIT);
        assertThat(third.statusCode()).isEqualTo(429);
        assertThat(third.headers().firstValue("Retry-After")).isPresent();
        assertThat(open(agent("session-other"))).as("another tenant is not capped by this one").isNotBlank();

        Thread.sleep(2_300);
        assertThat(post(a, first, LIST).statusCode()).as("an expired session").isEqualTo(404);
        assertThat(open(a)).as("expired sessions no longer count").isNotBlank();
    }
}
