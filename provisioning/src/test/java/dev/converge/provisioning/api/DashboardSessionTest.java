package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.converge.ledger.CreateRequest;
import dev.converge.provisioning.extensions.StandardExtensions;
import dev.converge.provisioning.flow.SiteResources;
import dev.converge.provisioning.tenant.Tenants;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's session over real HTTP: an operator token exchanged once for an HttpOnly,
 * SameSite=Strict cookie; every request that changes something refused (403 problem) without the
 * session's CSRF token, or with a CSRF token and no session; bearer tokens unchanged. Then what the
 * session does: retry a failed job, cancel a waiting one (recorded), and the sites of every tenant.
 */
class DashboardSessionTest {
    private static ApiHarness api;
    private static Tenants.Created tenant;
    private static String operator;
    private static long okSite;
    private static long failedSite;

    @BeforeAll
    static void start() {
        api = new ApiHarness(Duration.ofDays(14), ApiOptions.defaults(), StandardExtensions.all());
        tenant = api.tenant();
        operator = api.operatorToken();
        okSite = site(ApiHarness.subdomain("sess-ok"));
        String taken = ApiHarness.subdomain("sess-taken");
        api.service().resources().get(SiteResources.REPOSITORY).create(new CreateRequest(taken, null, null, Map.of()));
        failedSite = site(taken);
        await().atMost(Duration.ofSeconds(30)).until(() -> siteState(okSite).equals("active")
                && siteState(failedSite).equals("failed"));
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    private static long site(String subdomain) {
        String lead = api.lead(tenant.token());
        ApiClient.Reply r = api.client.postSite(tenant.token(), "sess-" + subdomain, ApiHarness.siteBody(lead, subdomain));
        assertThat(r.status()).as(r.toString()).isEqualTo(202);
        return api.siteDbId(r.json().get("site_id").asText());
    }

    private static String siteState(long id) {
        return api.client.get("/v1/sites/" + id, tenant.token()).json().get("state").asText();
    }

    /** A session: its cookie (name=value) and CSRF token. */
    record Session(String cookie, String csrf, String setCookie) {
    }

    static Session login(String token, boolean https) {
        HttpRequest.Builder b = api.client.request("/ui/session", null).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"token\":\"" + token + "\"}"));
        if (https) {
            b.header("X-Forwarded-Proto", "https");
        }
        ApiClient.Reply r = api.client.send(b);
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        String set = r.header("Set-Cookie");
        return new Session(set.substring(0, set.indexOf(';')), r.json().get("csrf_token").asText(), set);
    }

    static ApiClient.Reply as(Session s, String method, String path, String csrf, String body) {
        HttpRequest.Builder b = api.client.request(path, null).header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (s != null) {
            b.header("Cookie", s.cookie());
        }
        if (csrf != null) {
            b.header("X-CSRF-Token", csrf);
        }
        return api.client.send(b);
    }

    /** A job no worker takes (its queue is nobody's), in a state of our choosing; its id. */
    static long idleJob(String state) {
        return api.sql(c -> {
            try (var ps = c.prepareStatement("INSERT INTO cv_job (queue, kind, payload, state, run_at, max_attempts, "
                    + "last_error, created_at, finished_at) VALUES ('nobodys-queue', 'dash.idle', '{}', ?, CURRENT_TIMESTAMP, 1, "
                    + "?, CURRENT_TIMESTAMP, ?)", new String[] {"id"})) {
                ps.setString(1, state);
                ps.setString(2, state.equals("failed") ? "java.lang.IllegalStateException: the leaf is down\n\tat x.y(Z.java:1)"
                        : null);
                ps.setObject(3, state.equals("failed") ? java.time.OffsetDateTime.now() : null);
                ps.executeUpdate();
                try (var rs = ps.getGeneratedKeys()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
    }

    static String jobState(long id) {
        return api.service().engine().job(id).orElseThrow().state().sql();
    }

    @Test
    void anOperatorTokenIsExchangedOnceForAStrictHttpOnlyCookie() {
        Session s = login(operator, false);
        assertThat(s.setCookie()).startsWith("converge_session=").contains("; HttpOnly").contains("; SameSite=Strict")
                .contains("; Path=/").contains("; Max-Age=").doesNotContain("Secure").doesNotContain(operator);
        assertThat(login(operator, true).setCookie()).as("over https").contains("; Secure");
        assertThat(s.csrf()).isNotBlank();

        ApiClient.Reply read = as(s, "GET", "/ui/api/overview", null, null);
        assertThat(read.status()).as(read.toString()).isEqualTo(200);
        ApiClient.Reply again = as(s, "GET", "/ui/session", null, null);
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.json().get("csrf_token").asText()).as("a reloaded page reads its CSRF token again").isEqualTo(s.csrf());
        ApiClient.Reply none = as(null, "GET", "/ui/session", null, null);
        assertThat(none.status()).as("no session: an answer, not an error").isEqualTo(200);
        assertThat(none.json().get("active").asBoolean()).isFalse();
        assertThat(none.json().has("csrf_token")).isFalse();

        ApiClient.Reply tenants = api.client.send(api.client.request("/ui/session", null).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"token\":\"" + tenant.token() + "\"}")));
        assertThat(tenants.status()).isEqualTo(401);
        assertThat(tenants.json().get("detail").asText()).isEqualTo("This token is not an operator token.");
        assertThat(tenants.header("Set-Cookie")).isNull();
        assertThat(api.client.send(api.client.request("/ui/session", null).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"token\":\"cvo_nope\"}"))).status()).isEqualTo(401);
        assertThat(api.client.send(api.client.request("/ui/session", null).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("token=" + operator))).status()).as("a form post").isEqualTo(415);
        assertThat(as(new Session("converge_session=v1.1.9999999999.AAAAAAAAAAAAAAAAAAAAAA."
                + "A".repeat(43), "x", ""), "GET", "/ui/api/overview", null, null).status()).as("a forged cookie").isEqualTo(401);

        // bearer tokens keep working, with no CSRF token
        assertThat(api.client.get("/ui/api/overview", operator).status()).isEqualTo(200);
        assertThat(api.client.post("/v1/ops/jobs/" + idleJob("available") + "/cancellations", operator,
                "{\"reason\":\"bearer\"}").status()).isEqualTo(200);
        // the cookie opens the dashboard only: the API's own routes still want the bearer token
        assertThat(as(s, "GET", "/v1/orphans", null, null).status()).isEqualTo(401);
        assertThat(as(s, "POST", "/v1/ops/jobs/" + idleJob("available") + "/cancellations", s.csrf(),
                "{\"reason\":\"cookie\"}").status()).isEqualTo(401);
    }

    @Test
    void everyActionIsRefusedWithoutTheCookieOrWithoutTheCsrfToken() {
        Session s = login(operator, false);
        long waiting = idleJob("available");
        long failed = idleJob("failed");
        List<String> actions = List.of("/ui/api/jobs/" + waiting + "/cancel", "/ui/api/jobs/" + failed + "/retry",
                "/ui/api/orphans/delete", "/ui/api/orphans/scan");
        for (String path : actions) {
            String body = path.endsWith("delete") ? "{\"kind\":\"" + SiteResources.REPOSITORY + "\",\"leaf_id\":\"x\"}"
                    : "{\"reason\":\"test\"}";
            ApiClient.Reply noCsrf = as(s, "POST", path, null, body);
            assertThat(noCsrf.status()).as(path + " " + noCsrf).isEqualTo(403);
            assertThat(noCsrf.header("Content-Type")).startsWith("application/problem+json");
            assertThat(noCsrf.problem()).isEqualTo("csrf-token");
            assertThat(as(s, "POST", path, "not-the-token", body).status()).as(path + " wrong token").isEqualTo(403);
            ApiClient.Reply noCookie = as(null, "POST", path, s.csrf(), body);
            assertThat(noCookie.status()).as(path + " no cookie " + noCookie).isEqualTo(403);
            assertThat(noCookie.header("Content-Type")).startsWith("application/problem+json");
            assertThat(as(null, "POST", path, null, body).status()).as(path + " nothing").isEqualTo(401);
        }
        assertThat(jobState(waiting)).isEqualTo("available");
        assertThat(jobState(failed)).isEqualTo("failed");
        assertThat(as(s, "DELETE", "/ui/session", null, null).status()).as("logout without the CSRF token").isEqualTo(403);
    }

    @Test
    void aSessionRetriesAFailedJobAndCancelsAWaitingOneAndBothAreRecorded() {
        Session s = login(operator, false);
        long failed = idleJob("failed");
        ApiClient.Reply retried = as(s, "POST", "/ui/api/jobs/" + failed + "/retry", s.csrf(), "{\"reason\":\"leaf fixed\"}");
        assertThat(retried.status()).as(retried.toString()).isEqualTo(200);
        assertThat(retried.json().get("detail").asText()).contains("runs again");
        assertThat(jobState(failed)).isEqualTo("available");
        ApiClient.Reply twice = as(s, "POST", "/ui/api/jobs/" + failed + "/retry", s.csrf(), "{\"reason\":\"again\"}");
        assertThat(twice.json().get("detail").asText()).contains("nothing was retried");

        ApiClient.Reply cancelled = as(s, "POST", "/ui/api/jobs/" + failed + "/cancel", s.csrf(),
                "{\"reason\":\"not wanted after all\"}");
        assertThat(cancelled.status()).as(cancelled.toString()).isEqualTo(200);
        assertThat(cancelled.json().get("detail").asText()).contains("is cancelled");
        assertThat(jobState(failed)).isEqualTo("cancelled");
        assertThat(as(s, "POST", "/ui/api/jobs/" + failed + "/cancel", s.csrf(), "{\"reason\":\"again\"}").json()
                .get("detail").asText()).as("cancelled already").contains("nothing was cancelled");
        long running = idleJob("available");
        api.update("UPDATE cv_job SET state = 'running', epoch = epoch + 1, lease_owner = 'elsewhere', "
                + "lease_expires_at = CURRENT_TIMESTAMP WHERE id = ?", running);
        ApiClient.Reply notRunning = as(s, "POST", "/ui/api/jobs/" + running + "/cancel", s.csrf(), "{\"reason\":\"stop\"}");
        assertThat(notRunning.json().get("detail").asText()).as("a running job is never cancelled").contains("nothing was cancelled");
        assertThat(jobState(running)).isEqualTo("running");
        api.update("UPDATE cv_job SET state = 'failed' WHERE id = ?", running);
        assertThat(as(s, "POST", "/ui/api/jobs/" + failed + "/cancel", s.csrf(), "{}").status())
                .as("a reason is required").isEqualTo(422);

        JsonNode recorded = api.client.get("/v1/ops/actions", operator).json().get("items");
        List<String> mine = new ArrayList<>();
        recorded.forEach(a -> {
            if (a.get("target").asText().equals("job " + failed)) {
                mine.add(a.get("action").asText() + ":" + a.get("applied").asBoolean() + ":" + a.get("actor").asText());
            }
        });
        assertThat(mine).allMatch(m -> m.contains(":operator:token-"))
                .anyMatch(m -> m.startsWith("retry_job:true")).anyMatch(m -> m.startsWith("cancel_job:true"));
    }

    @Test
    void theSitesOfEveryTenantArePagedAndFilteredWithFailureCodeResourcesAndFlow() {
        Tenants.Created other = api.tenant();
        String lead = api.lead(other.token());
        ApiClient.Reply r = api.client.postSite(other.token(), "sess-other", ApiHarness.siteBody(lead,
                ApiHarness.subdomain("sess-other")));
        long otherSite = api.siteDbId(r.json().get("site_id").asText());
        JsonNode all = api.client.get("/ui/api/pages/sites", operator).json().get("items");
        List<Long> ids = new ArrayList<>();
        all.forEach(i -> ids.add(i.get("id").asLong()));
        assertThat(ids).contains(okSite, failedSite, otherSite);
        assertThat(ids).isSortedAccordingTo((a, b) -> Long.compare(b, a));
        for (JsonNode i : all) {
            if (i.get("id").asLong() == okSite) {
                assertThat(i.get("state").asText()).isEqualTo("active");
                assertThat(i.get("provision_flow_id").asLong()).isPositive();
                assertThat(i.get("resources").size()).as("repository, hosting site, license...").isGreaterThanOrEqualTo(3);
                i.get("resources").forEach(e -> assertThat(e.get("state").asText()).isEqualTo("confirmed"));
                assertThat(i.get("tenant_id").asLong()).isEqualTo(tenant.tenant().id());
            }
            if (i.get("id").asLong() == failedSite) {
                assertThat(i.get("failure_code").asText()).isEqualTo("name_taken_at_provider");
            }
        }
        JsonNode mine = api.client.get("/ui/api/pages/sites?tenant_id=" + other.tenant().id(), operator).json().get("items");
        assertThat(mine).hasSize(1);
        assertThat(mine.get(0).get("id").asLong()).isEqualTo(otherSite);
        api.client.get("/ui/api/pages/sites?state=failed", operator).json().get("items")
                .forEach(i -> assertThat(i.get("state").asText()).isEqualTo("failed"));
        JsonNode older = api.client.get("/ui/api/pages/sites?before=" + otherSite, operator).json().get("items");
        older.forEach(i -> assertThat(i.get("id").asLong()).isLessThan(otherSite));
        assertThat(api.client.get("/ui/api/pages/sites?state=bogus", operator).status()).isEqualTo(400);
        assertThat(api.client.get("/ui/api/pages/sites?tenant_id=x", operator).status()).isEqualTo(400);
        assertThat(api.client.get("/ui/api/pages/sites", tenant.token()).status()).as("a tenant's token").isEqualTo(401);
    }

    @Test
    void theSecretComesFromTheEnvironmentAndMustBeLongEnough() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> OperatorDashboard.dashboard(api.service(),
                Map.of(OperatorDashboard.SECRET_ENV, "short"))).hasMessageContaining("at least 32");
        assertThat(OperatorDashboard.dashboard(api.service(), Map.of(OperatorDashboard.SECRET_ENV, "s".repeat(32)))).isNotNull();
    }

    @Test
    void logoutClearsTheCookieAndRevokingTheTokenEndsItsSessions() {
        String token = api.service().tenants().credentials().issueOperator(null, "revoked-later").token();
        Session s = login(token, false);
        ApiClient.Reply out = as(s, "DELETE", "/ui/session", s.csrf(), null);
        assertThat(out.status()).isEqualTo(200);
        assertThat(out.json().get("ended").asBoolean()).isTrue();
        assertThat(out.header("Set-Cookie")).startsWith("converge_session=;").contains("Max-Age=0");
        assertThat(as(s, "GET", "/ui/api/jobs", null, null).status()).as("a copy of the cookie kept past logout")
                .isEqualTo(401);
        assertThat(as(s, "GET", "/ui/session", null, null).json().get("active").asBoolean()).isFalse();

        Session again = login(token, false);
        assertThat(as(again, "GET", "/ui/api/jobs", null, null).status()).isEqualTo(200);
        long id = api.service().tenants().credentials().list(null).stream().filter(t -> "revoked-later".equals(t.label()))
                .findFirst().orElseThrow().id();
        assertThat(api.service().tenants().credentials().revoke(id, null)).isTrue();
        assertThat(as(again, "GET", "/ui/api/jobs", null, null).status()).as("the token's sessions end with it")
                .isEqualTo(401);
    }
}
