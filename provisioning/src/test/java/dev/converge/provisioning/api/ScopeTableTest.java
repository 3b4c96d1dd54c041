package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.converge.provisioning.access.Scope;
import dev.converge.provisioning.extensions.StandardExtensions;
import dev.converge.provisioning.tenant.Tenants;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every route against every scope, from one table written here (not read from the code under
 * test): a scope the route does not admit gets 403 problem+json naming the scopes it needs (never
 * 404 or 500), no token gets 401, and an admitted scope gets through to the handler.
 */
class ScopeTableTest {
    private static final Set<Scope> READ = EnumSet.of(Scope.AGENT, Scope.SERVICE, Scope.APPROVER);
    private static final Set<Scope> PUBLIC = EnumSet.noneOf(Scope.class);

    /** route -> the scopes that may call it (empty: no token needed). DELETE last: it removes the site. */
    private static final Map<String, Set<Scope>> TABLE = new LinkedHashMap<>();

    /** The dashboard's JSON: its own check, the operator token (or its session) only; any other token is unknown to it. */
    private static final List<String> DASHBOARD = List.of("GET /ui/api/overview", "GET /ui/api/jobs", "GET /ui/api/jobs/{id}", "GET /ui/api/jobs/selection", "POST /ui/api/jobs/bulk", "GET /ui/api/flows",
            "GET /ui/api/flows/{id}", "GET /ui/api/ledger", "GET /ui/api/nodes", "GET /ui/api/history", "GET /ui/api/recurring",
            "POST /ui/api/recurring/{name}/pause", "POST /ui/api/recurring/{name}/resume", "POST /ui/api/recurring/{name}/run",
            "GET /ui/api/orphans", "POST /ui/api/orphans/scan",
            "POST /ui/api/orphans/delete", "POST /ui/api/jobs/{id}/retry", "POST /ui/api/jobs/{id}/cancel",
            "POST /ui/api/flows/{id}/retry", "POST /ui/api/ledger/{id}/settle", "GET /ui/api/tokens",
            "POST /ui/api/tokens/{id}/settle",
            "GET /ui/api/pages/sites", "GET /ui/pages/sites.js");

    static {
        TABLE.put("GET /health", PUBLIC);
        TABLE.put("GET /openapi.json", PUBLIC);
        TABLE.put("GET /metrics", EnumSet.of(Scope.OPERATOR));
        TABLE.put("GET /v1/orphans", EnumSet.of(Scope.OPERATOR));
        TABLE.put("GET /ui", PUBLIC);
        TABLE.put("GET /ui/dashboard.js", PUBLIC);
        TABLE.put("GET /ui/dashboard.css", PUBLIC);
        TABLE.put("GET /ui/uplot.js", PUBLIC);
        TABLE.put("GET /ui/uplot.css", PUBLIC);
        // the session exchange takes the operator token in its body, never a bearer header; no session is an answer
        TABLE.put("POST /ui/session", PUBLIC);
        TABLE.put("GET /ui/session", PUBLIC);
        TABLE.put("DELETE /ui/session", PUBLIC);
        TABLE.put("POST /v1/leads", EnumSet.of(Scope.SERVICE));
        TABLE.put("GET /v1/leads/{id}", READ);
        TABLE.put("POST /v1/sites", EnumSet.of(Scope.SERVICE));
        TABLE.put("GET /v1/sites", READ);
        TABLE.put("GET /v1/sites/{id}", READ);
        TABLE.put("POST /v1/sites/{id}/subscription", EnumSet.of(Scope.SERVICE));
        TABLE.put("POST /v1/sites/{id}/welcome-resends", EnumSet.of(Scope.APPROVER));
        TABLE.put("POST /v1/sites/{id}/delete-approvals", EnumSet.of(Scope.APPROVER));
        TABLE.put("POST /v1/sites/{id}/retries", EnumSet.of(Scope.APPROVER));
        TABLE.put("POST /v1/ops/jobs/{id}/retries", EnumSet.of(Scope.OPERATOR));
        TABLE.put("POST /v1/ops/jobs/{id}/cancellations", EnumSet.of(Scope.OPERATOR));
        TABLE.put("POST /v1/ops/flows/{id}/retries", EnumSet.of(Scope.OPERATOR));
        TABLE.put("POST /v1/ops/ledger-entries/{id}/settlements", EnumSet.of(Scope.OPERATOR));
        TABLE.put("POST /v1/ops/tokens/{id}/settlements", EnumSet.of(Scope.OPERATOR));
        TABLE.put("GET /v1/ops/actions", EnumSet.of(Scope.OPERATOR));
        TABLE.put("GET /v1/ops/recurring", EnumSet.of(Scope.OPERATOR));
        TABLE.put("POST /mcp", EnumSet.of(Scope.AGENT));
        TABLE.put("POST /v1/conversations", EnumSet.of(Scope.AGENT, Scope.SERVICE));
        TABLE.put("GET /v1/conversations/{id}", READ);
        TABLE.put("POST /v1/conversations/{id}/messages", EnumSet.of(Scope.AGENT, Scope.SERVICE));
        TABLE.put("DELETE /v1/sites/{id}", EnumSet.of(Scope.SERVICE));
    }

    private static ApiHarness api;
    private static final Map<Scope, String> TOKENS = new EnumMap<>(Scope.class);
    private static String leadId;
    private static String siteId;
    private static long siteDbId;
    private static long conversationId;

    @BeforeAll
    static void start() {
        // every route is tried with every wrong token from one address: far more refusals than the
        // per-address limit on failed authentications admits, which FailedAuthLimitTest holds on its own
        api = new ApiHarness(Duration.ofDays(14), ApiOptions.defaults().withAuthFailuresPerMinute(1_000_000),
                StandardExtensions.all());
        Tenants.Created tenant = api.tenant();
        TOKENS.put(Scope.SERVICE, tenant.token());
        TOKENS.put(Scope.AGENT, api.token(tenant, Scope.AGENT));
        TOKENS.put(Scope.APPROVER, api.token(tenant, Scope.APPROVER));
        TOKENS.put(Scope.OPERATOR, api.operatorToken());
        api.server.scanOrphansNow();
        leadId = api.lead(tenant.token());
        ApiClient.Reply site = api.client.postSite(tenant.token(), "scope-table-site",
                ApiHarness.siteBody(leadId, ApiHarness.subdomain("scopes")));
        assertThat(site.status()).as(site.toString()).isEqualTo(202);
        siteId = site.json().get("site_id").asText();
        siteDbId = api.siteDbId(siteId);
        conversationId = api.service().conversations().start(tenant.tenant().id(), "hello").conversationId();
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    @Test
    void theTableNamesEveryRouteTheServerServes() {
        Set<String> served = new TreeSet<>(api.server.routes());
        served.add("POST /mcp"); // a servlet beside Javalin's routes
        Set<String> named = new TreeSet<>(TABLE.keySet());
        named.addAll(DASHBOARD);
        assertThat(served).isEqualTo(named);
    }

    @Test
    void theDashboardAdmitsTheOperatorOnly() {
        List<String> failures = new ArrayList<>();
        for (String route : DASHBOARD) {
            if (route.endsWith(".js")) {
                expect(failures, route, "no token", call(route, null).status() == 200, call(route, null));
                continue;
            }
            ApiClient.Reply anonymous = call(route, null);
            expect(failures, route, "no token", anonymous.status() == 401
                    && anonymous.header("Content-Type").startsWith("application/problem+json"), anonymous);
            for (Scope scope : EnumSet.allOf(Scope.class)) {
                ApiClient.Reply r = call(route, TOKENS.get(scope));
                expect(failures, route, scope.sql(), scope == Scope.OPERATOR ? r.status() < 500 && r.status() != 401
                        && r.status() != 403 : r.status() == 401, r);
            }
        }
        assertThat(failures).isEmpty();
    }

    @Test
    void everyRouteAgainstEveryScope() {
        List<String> failures = new ArrayList<>();
        for (Map.Entry<String, Set<Scope>> row : TABLE.entrySet()) {
            String route = row.getKey();
            Set<Scope> allowed = row.getValue();
            ApiClient.Reply anonymous = call(route, null);
            if (allowed.isEmpty()) {
                expect(failures, route, "no token", anonymous.status() == 200, anonymous);
            } else {
                expect(failures, route, "no token", anonymous.status() == 401 && isProblem(anonymous, "unauthorized"),
                        anonymous);
            }
            // refused scopes first, so that an admitted DELETE runs after them
            List<Scope> order = new ArrayList<>(EnumSet.allOf(Scope.class));
            order.sort((a, b) -> Boolean.compare(allowed.contains(a), allowed.contains(b)));
            for (Scope scope : order) {
                ApiClient.Reply r = call(route, TOKENS.get(scope));
                if (allowed.isEmpty() || allowed.contains(scope)) {
                    expect(failures, route, scope.sql(), r.status() < 500 && r.status() != 401 && r.status() != 403
                            && r.status() != 404, r);
                } else {
                    expect(failures, route, scope.sql(), refusedNaming(r, allowed, scope), r);
                }
            }
        }
        assertThat(failures).isEmpty();
    }

    @Test
    void anExpiredOrRevokedTokenIsRefusedLikeAnUnknownOne() throws Exception {
        var credentials = api.service().tenants().credentials();
        Tenants.Created tenant = api.tenant();
        var expiring = credentials.issue(tenant.tenant().id(), Scope.SERVICE, Duration.ofMillis(300), "short");
        assertThat(api.client.get("/v1/sites", expiring.token()).status()).isEqualTo(200);
        Thread.sleep(400 + Duration.ofSeconds(0).toMillis());
        // the database clock decides; the cache may hold the answer at most its TTL, but not past the expiry
        assertThat(api.client.get("/v1/sites", expiring.token()).status()).isEqualTo(401);
        var revoked = credentials.issue(tenant.tenant().id(), Scope.SERVICE, null, "to revoke");
        assertThat(api.client.get("/v1/sites", revoked.token()).status()).isEqualTo(200);
        assertThat(credentials.revoke(revoked.info().id(), tenant.tenant().id() + 1000)).as("not that tenant's").isFalse();
        assertThat(credentials.revoke(revoked.info().id(), tenant.tenant().id())).isTrue();
        assertThat(api.client.get("/v1/sites", revoked.token()).status()).isEqualTo(401);
        assertThat(api.client.get("/v1/sites", tenant.token()).status()).as("its other tokens still work").isEqualTo(200);
    }

    private static boolean refusedNaming(ApiClient.Reply r, Set<Scope> allowed, Scope scope) {
        if (r.status() != 403 || !isProblem(r, "insufficient-scope")) {
            return false;
        }
        JsonNode body = r.json();
        List<String> required = new ArrayList<>();
        body.path("required_scopes").forEach(n -> required.add(n.asText()));
        List<String> expected = allowed.stream().sorted().map(Scope::sql).toList();
        return required.equals(expected) && body.path("token_scope").asText().equals(scope.sql())
                && expected.stream().allMatch(s -> body.path("detail").asText().contains(s))
                && r.header("WWW-Authenticate") != null && r.header("WWW-Authenticate").contains("insufficient_scope");
    }

    private static boolean isProblem(ApiClient.Reply r, String slug) {
        return String.valueOf(r.header("Content-Type")).startsWith("application/problem+json") && r.problem().equals(slug);
    }

    private static void expect(List<String> failures, String route, String who, boolean ok, ApiClient.Reply r) {
        if (!ok) {
            failures.add(route + " as " + who + ": " + r.status() + " " + r.body());
        }
    }

    private static ApiClient.Reply call(String route, String token) {
        String method = route.substring(0, route.indexOf(' '));
        String path = route.substring(route.indexOf(' ') + 1).replace("/v1/leads/{id}", "/v1/leads/" + leadId)
                .replace("/v1/conversations/{id}", "/v1/conversations/" + conversationId)
                .replace("/v1/sites/{id}", "/v1/sites/" + siteId)
                .replace("{id}", Long.toString(siteDbId)).replace("{name}", "some.recurring-job"); // the engine's ids (jobs, flows, entries, tokens): any number
        HttpRequest.Builder b = api.client.request(path, token);
        return switch (route) {
            case "POST /v1/leads" -> api.client.send(b.header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"Ada\",\"email\":\"ada@example.com\"}")));
            case "POST /v1/sites" -> api.client.send(b.header("Content-Type", "application/json")
                    .header("Idempotency-Key", "scope-table-" + System.nanoTime())
                    .POST(HttpRequest.BodyPublishers.ofString(ApiHarness.siteBody(leadId, ApiHarness.subdomain("tbl")))));
            case "POST /ui/session" -> api.client.send(b.header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"token\":\"" + TOKENS.get(Scope.OPERATOR) + "\"}")));
            case "POST /mcp" -> api.client.send(b.header("Content-Type", "application/json")
                    .header("Accept", "application/json, text/event-stream")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
                            + "\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                            + "\"clientInfo\":{\"name\":\"table\",\"version\":\"1\"}}}")));
            default -> api.client.send(switch (method) {
                case "GET" -> b.GET();
                case "DELETE" -> b.DELETE();
                default -> b.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{}"));
            });
        };
    }
}
