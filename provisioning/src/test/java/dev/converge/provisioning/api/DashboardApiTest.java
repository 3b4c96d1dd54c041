package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.converge.ledger.CreateRequest;
import dev.converge.provisioning.extensions.StandardExtensions;
import dev.converge.provisioning.flow.SiteResources;
import dev.converge.provisioning.tenant.Tenants;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's JSON over real HTTP, against the whole service with sites that succeeded and
 * one that failed: what each view reads, that only the operator token reads it, and that what the
 * database holds beyond state (tokens, job payloads) never leaves it.
 */
class DashboardApiTest {
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
        okSite = site("dash-ok");
        String taken = ApiHarness.subdomain("dash-taken");
        // someone else's repository already holds the name at the git host: the flow fails and compensates
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
        ApiClient.Reply r = api.client.postSite(tenant.token(), "dash-" + subdomain,
                ApiHarness.siteBody(lead, subdomain.startsWith("dash-taken") ? subdomain : ApiHarness.subdomain(subdomain)));
        assertThat(r.status()).as(r.toString()).isEqualTo(202);
        return api.siteDbId(r.json().get("site_id").asText());
    }

    private static String siteState(long id) {
        return api.client.get("/v1/sites/" + id, tenant.token()).json().get("state").asText();
    }

    private static long flowOf(long siteId) {
        return api.count("SELECT provision_flow_id FROM pv_site WHERE id = ?", siteId);
    }

    private static JsonNode read(String path) {
        ApiClient.Reply r = api.client.get(path, operator);
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        return r.json();
    }

    @Test
    void theOverviewCountsJobsPerQueueFlowsSitesAndTheLedger() {
        JsonNode o = read("/ui/api/overview");
        JsonNode sites = read("/ui/api/pages/sites").get("states");
        assertThat(sites.get("active").asLong()).isGreaterThanOrEqualTo(1);
        assertThat(sites.get("failed").asLong()).isGreaterThanOrEqualTo(1);
        assertThat(o.get("flows").get("succeeded").asLong()).isGreaterThanOrEqualTo(1);
        assertThat(o.get("flows").get("failed").asLong()).isGreaterThanOrEqualTo(1);
        List<String> queues = new ArrayList<>();
        long succeededLastHour = 0;
        for (JsonNode q : o.get("queues")) {
            queues.add(q.get("queue").asText());
            succeededLastHour += q.get("succeeded_last_hour").asLong();
            assertThat(q.get("throughput")).hasSize(12);
        }
        assertThat(queues).isNotEmpty();
        assertThat(succeededLastHour).as("the jobs of the sites that just ran").isPositive();
        assertThat(o.get("ledger").size()).as("resource kinds with entries").isGreaterThanOrEqualTo(1);
        assertThat(o.get("this_node").has("lease_lost")).isTrue();
        // the service's own recurring job, with its schedule and the next slot due
        JsonNode purge = o.get("recurring").get(0);
        assertThat(purge.get("name").asText()).isEqualTo("pv.purge-expired");
        assertThat(purge.get("missed_slots").asText()).isEqualTo("skip");
        assertThat(purge.get("next_slot").asText()).isNotEmpty();
    }

    @Test
    void aFlowsTimelineShowsItsTransitionsJobsAndTheLedgerEntriesItCreatedButNoPayload() {
        long flow = flowOf(okSite);
        ApiClient.Reply r = api.client.get("/ui/api/flows/" + flow, operator);
        assertThat(r.status()).isEqualTo(200);
        JsonNode f = r.json();
        assertThat(f.get("flow").get("state").asText()).isEqualTo("succeeded");
        List<String> to = new ArrayList<>();
        f.get("history").forEach(h -> to.add(h.get("to").asText()));
        assertThat(to).endsWith("succeeded");
        assertThat(f.get("jobs").size()).isPositive();
        assertThat(f.get("batches").size()).isPositive();
        assertThat(f.get("ledger").size()).as("repository, hosting site, license...").isGreaterThanOrEqualTo(3);
        f.get("ledger").forEach(e -> {
            assertThat(e.get("state").asText()).isEqualTo("confirmed");
            assertThat(e.has("data")).as("a leaf's reply is never shown").isFalse();
        });
        f.get("jobs").forEach(j -> assertThat(j.has("payload")).isFalse());
        String payload = api.sql(c -> {
            try (var ps = c.prepareStatement("SELECT payload FROM cv_job WHERE flow_id = ? ORDER BY id")) {
                ps.setLong(1, flow);
                try (var rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getString(1);
                }
            }
        });
        assertThat(r.body()).doesNotContain(payload).doesNotContain(tenant.token()).doesNotContain(operator);

        JsonNode failed = read("/ui/api/flows/" + flowOf(failedSite));
        assertThat(failed.get("flow").get("state").asText()).isEqualTo("failed");
        assertThat(failed.get("history").toString()).contains("compensating");
        assertThat(api.client.get("/ui/api/flows/987654", operator).status()).isEqualTo(404);
        assertThat(api.client.get("/ui/api/flows/x", operator).status()).isEqualTo(404);
    }

    @Test
    void flowsThatNeedAPersonComeFirstWithWhy() {
        long flow = flowOf(okSite);
        long other = flowOf(failedSite);
        // the state a compensation that could not finish leaves behind
        api.update("UPDATE cv_flow SET state = 'needs_attention', attention = 'the license may exist: check the license service'"
                + " WHERE id = ?", flow);
        try {
            JsonNode items = read("/ui/api/flows").get("items");
            assertThat(items.get(0).get("id").asLong()).isEqualTo(flow);
            assertThat(items.get(0).get("attention").asText()).contains("check the license service");
            List<Long> ids = new ArrayList<>();
            items.forEach(i -> ids.add(i.get("id").asLong()));
            assertThat(ids).contains(other);
            JsonNode only = read("/ui/api/flows?state=failed").get("items");
            only.forEach(i -> assertThat(i.get("state").asText()).isEqualTo("failed"));
            assertThat(only.size()).isPositive();
        } finally {
            api.update("UPDATE cv_flow SET state = 'succeeded', attention = NULL WHERE id = ?", flow);
        }
    }

    @Test
    void jobsAreFilteredAndPaged() {
        JsonNode all = read("/ui/api/jobs").get("items");
        assertThat(all.size()).isPositive();
        long newest = all.get(0).get("id").asLong();
        JsonNode older = read("/ui/api/jobs?before=" + newest).get("items");
        older.forEach(j -> assertThat(j.get("id").asLong()).isLessThan(newest));
        String queue = all.get(0).get("queue").asText();
        read("/ui/api/jobs?state=succeeded&queue=" + queue).get("items").forEach(j -> {
            assertThat(j.get("state").asText()).isEqualTo("succeeded");
            assertThat(j.get("queue").asText()).isEqualTo(queue);
            assertThat(j.has("epoch")).isTrue();
        });
        assertThat(read("/ui/api/jobs?type=no-such-type").get("items").size()).isZero();
        assertThat(api.client.get("/ui/api/jobs?before=abc", operator).status()).isEqualTo(400);
    }

    @Test
    void uncertainLedgerEntriesAreListedHighlightedWithWhatHappensNext() {
        long entry = api.count("SELECT MIN(id) FROM cv_ledger WHERE flow_id = ?", flowOf(okSite));
        api.update("UPDATE cv_ledger SET state = 'uncertain' WHERE id = ?", entry);
        try {
            JsonNode items = read("/ui/api/ledger").get("items");
            JsonNode e = null;
            for (JsonNode i : items) {
                if (i.get("id").asLong() == entry) {
                    e = i;
                }
            }
            assertThat(e).as("the uncertain entry is listed").isNotNull();
            assertThat(e.get("highlight").asBoolean()).isTrue();
            assertThat(e.get("next").asText()).contains("reaper");
            assertThat(e.has("data")).isFalse();
            await().atMost(Duration.ofSeconds(10)).until(() -> read("/ui/api/overview").get("uncertain").asLong() >= 1);
            JsonNode confirmed = read("/ui/api/ledger?state=confirmed").get("items");
            confirmed.forEach(i -> assertThat(i.get("state").asText()).isEqualTo("confirmed"));
            assertThat(confirmed.size()).isPositive();
        } finally {
            api.update("UPDATE cv_ledger SET state = 'confirmed' WHERE id = ?", entry);
        }
    }

    @Test
    void anOperatorDeletesAnOrphanOfOurSitesAfterItIsCheckedAgainButNothingElse() {
        var repos = api.service().resources().get(SiteResources.REPOSITORY);
        String ours = repos.create(new CreateRequest(ApiHarness.subdomain("stray-ours"),
                dev.converge.ledger.Ledger.defaultTagFor(dev.converge.provisioning.site.Site.subjectOf(okSite)), null, Map.of())).leafId();
        String nobodys = repos.create(new CreateRequest(ApiHarness.subdomain("stray-nobodys"), null, null, Map.of())).leafId();
        String path = "/ui/api/orphans/delete";
        String body = "{\"kind\":\"" + SiteResources.REPOSITORY + "\",\"leaf_id\":\"" + ours + "\"}";

        assertThat(api.client.post(path, tenant.token(), body).status()).as("a tenant's token").isEqualTo(401);
        assertThat(api.client.post(path, null, body).status()).isEqualTo(401);
        assertThat(leafIdsOfOrphans()).contains(ours, nobodys);

        ApiClient.Reply r = api.client.post(path, operator, body);
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        assertThat(r.json().get("subject").asText()).isEqualTo(dev.converge.provisioning.site.Site.subjectOf(okSite));
        assertThat(leafIdsOfOrphans()).as("gone from the leaf").doesNotContain(ours).contains(nobodys);
        assertThat(api.client.post(path, operator, body).status()).as("no longer an orphan").isEqualTo(404);

        ApiClient.Reply untagged = api.client.post(path, operator,
                "{\"kind\":\"" + SiteResources.REPOSITORY + "\",\"leaf_id\":\"" + nobodys + "\"}");
        assertThat(untagged.status()).as("not ours: never deleted from here").isEqualTo(422);
        assertThat(leafIdsOfOrphans()).contains(nobodys);
        long owned = api.count("SELECT COUNT(*) FROM cv_ledger WHERE kind = ? AND state = 'confirmed'", SiteResources.REPOSITORY);
        String ownedLeafId = api.sql(c -> {
            try (var ps = c.prepareStatement("SELECT leaf_id FROM cv_ledger WHERE kind = ? AND state = 'confirmed'")) {
                ps.setString(1, SiteResources.REPOSITORY);
                try (var rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getString(1);
                }
            }
        });
        assertThat(owned).isPositive();
        assertThat(api.client.post(path, operator, "{\"kind\":\"" + SiteResources.REPOSITORY + "\",\"leaf_id\":\""
                + ownedLeafId + "\"}").status()).as("a resource the ledger owns").isEqualTo(404);
        assertThat(api.client.post(path, operator, "{\"kind\":\"nope\",\"leaf_id\":\"1\"}").status()).isEqualTo(422);
        assertThat(api.client.post(path, operator, "{\"kind\":").status()).isEqualTo(400);
    }

    private static List<String> leafIdsOfOrphans() {
        return api.service().engine().ledger().orphans(api.service().resources().get(SiteResources.REPOSITORY)).stream()
                .map(dev.converge.ledger.LeafResource::leafId).toList();
    }

    @Test
    void onlyTheOperatorReadsTheDashboardData() {
        for (String path : List.of("/ui/api/overview", "/ui/api/jobs", "/ui/api/flows",
                "/ui/api/ledger", "/ui/api/orphans", "/ui/api/pages/sites", "/ui/api/flows/" + flowOf(okSite))) {
            assertThat(api.client.get(path, null).status()).as(path).isEqualTo(401);
            assertThat(api.client.get(path, tenant.token()).status()).as("a tenant's token: " + path).isEqualTo(401);
        }
    }

    @Test
    void thePageAndItsAssetsComeFromTheJarWithAStrictContentSecurityPolicy() {
        for (String path : List.of("/ui", "/ui/dashboard.js", "/ui/dashboard.css", "/ui/pages/sites.js")) {
            ApiClient.Reply r = api.client.get(path, null);
            assertThat(r.status()).as(path).isEqualTo(200);
            assertThat(r.header("Content-Security-Policy")).contains("script-src 'self'").doesNotContain("unsafe-inline");
            assertThat(r.body()).as("no CDN or other outside asset in " + path).doesNotContainPattern("(src|href)=\"(https?:)?//")
                    .doesNotContain("@import").doesNotContain("url(http");
        }
        assertThat(api.client.get("/ui", null).header("Content-Type")).startsWith("text/html");
        for (String script : List.of("/ui/dashboard.js", "/ui/pages/sites.js")) {
            assertThat(api.client.get(script, null).body()).as("no markup parsed from strings in " + script)
                    .doesNotContainPattern("innerHTML\\s*\\+?=(?!=)").doesNotContain("insertAdjacentHTML")
                    .doesNotContain("outerHTML");
        }
    }
}
