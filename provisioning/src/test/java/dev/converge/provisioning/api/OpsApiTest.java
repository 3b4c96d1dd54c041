package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** /health, /metrics and /openapi.json, and that the description covers every route the server registers. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OpsApiTest {
    private ApiHarness api;

    @BeforeAll
    void start() {
        api = new ApiHarness();
    }

    @AfterAll
    void stop() {
        api.close();
    }

    @Test
    void healthIsOkWithoutAToken() {
        var r = api.client.get("/health", null);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().get("status").asText()).isEqualTo("ok");
    }

    @Test
    void metricsCountRequestsByRouteTemplateNotRawPath() {
        String token = api.tenant().token();
        api.client.get("/v1/sites/424242", token);
        api.client.get("/v1/sites/424243", token);
        api.client.get("/v1/sites/424244", null);
        assertThat(api.client.get("/metrics", null).status()).isEqualTo(401);
        assertThat(api.client.get("/metrics", token).status()).as("a tenant's token is not the operator's").isEqualTo(403);
        var r = api.client.get("/metrics", api.operatorToken());
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("Content-Type")).startsWith("text/plain");
        List<String> lines = r.body().lines().filter(l -> l.startsWith("converge_http_requests_seconds_count{")).toList();
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("method=\"GET\"").contains("route=\"/v1/sites/{id}\"")
                .contains("status=\"404\"").matches(".* 2(\\.0)?$"));
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("route=\"/v1/sites/{id}\"").contains("status=\"401\""));
        assertThat(r.body()).doesNotContain("424242");
        assertThat(r.body()).contains("converge_jobs").contains("converge_sites");
    }

    @Test
    void storeWideGaugesAreServedFromMemoryBetweenRefreshesSoScrapesCostNoQueries() {
        String operator = api.operatorToken();
        var tenant = api.tenant();
        String before = provisioningGauge(api.client.get("/metrics", operator).body());
        String lead = api.lead(tenant.token());
        assertThat(api.client.postSite(tenant.token(), "gauge-1", ApiHarness.siteBody(lead, ApiHarness.subdomain("g")))
                .status()).isEqualTo(202);
        assertThat(api.count("SELECT COUNT(*) FROM pv_site")).isPositive();
        assertThat(provisioningGauge(api.client.get("/metrics", operator).body())).as("not re-read within 15 s")
                .isEqualTo(before);
        assertThat(api.client.get("/metrics", operator).body()).as("the engine's own meters are served too")
                .contains("converge_flows{state=\"needs_attention\"}");
    }

    private static String provisioningGauge(String scrape) {
        return scrape.lines().filter(l -> l.startsWith("converge_sites{") && l.contains("state=\"provisioning\""))
                .findFirst().orElseThrow();
    }

    @Test
    void extensionsAreMountedOnTheSameServerWithItsAuthenticationAndJsonMapper() {
        ApiExtension whoami = (config, context) -> config.routes.get("/ext/whoami", ctx -> {
            var tenant = context.authenticator().authenticate(ctx.header("Authorization")).map(c -> c.tenant());
            ctx.status(tenant.isPresent() ? 200 : 401).contentType("application/json")
                    .result(context.json().writeValueAsString(Map.of("tenant", tenant.map(t -> t.name()).orElse("none"),
                            "since", tenant.map(t -> t.createdAt()).orElse(Instant.EPOCH))));
        });
        var tenant = api.tenant();
        try (ApiServer server = ApiServer.start(api.service(), ApiOptions.defaults(), List.of(whoami))) {
            ApiClient client = new ApiClient(server.port());
            var r = client.get("/ext/whoami", tenant.token());
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.json().get("tenant").asText()).isEqualTo(tenant.tenant().name());
            assertThat(r.json().get("since").isTextual()).as("dates are ISO-8601 strings").isTrue();
            assertThat(Instant.parse(r.json().get("since").asText())).isEqualTo(tenant.tenant().createdAt());
            assertThat(client.get("/ext/whoami", "wrong").status()).isEqualTo(401);
            assertThat(client.get("/health", null).status()).as("our routes are there too").isEqualTo(200);
            assertThat(server.routes()).contains("GET /ext/whoami");
        }
    }

    @Test
    void openApiDescribesEveryRegisteredRouteAndNothingElse() throws Exception {
        var r = api.client.get("/openapi.json", null);
        assertThat(r.status()).isEqualTo(200);
        JsonNode doc = r.json();
        assertThat(doc.get("openapi").asText()).startsWith("3.1");

        // the server as it is run: with the MCP endpoint and the approval routes mounted
        List<String> registered;
        try (ApiServer full = ApiServer.start(api.service(), ApiOptions.defaults(),
                dev.converge.provisioning.extensions.StandardExtensions.all())) {
            registered = full.routes();
        }
        assertThat(registered).contains("POST /v1/sites", "GET /v1/sites/{id}", "DELETE /v1/sites/{id}", "GET /health",
                "POST /v1/sites/{id}/delete-approvals");
        List<String> documented = new ArrayList<>();
        for (Map.Entry<String, JsonNode> path : doc.get("paths").properties()) {
            for (Map.Entry<String, JsonNode> operation : path.getValue().properties()) {
                documented.add(operation.getKey().toUpperCase() + " " + path.getKey());
            }
        }
        assertThat(documented).containsExactlyInAnyOrderElementsOf(registered);

        String text = r.body();
        assertThat(Arrays.stream(ProblemType.values()).map(ProblemType::uri))
                .as("every problem type is documented").allMatch(text::contains);
    }
}
