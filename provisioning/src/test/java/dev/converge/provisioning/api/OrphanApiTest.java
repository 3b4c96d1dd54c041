package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.converge.leafsim.LeafSim;
import dev.converge.leafsim.fault.FaultRule;
import dev.converge.leafsim.fault.FaultType;
import dev.converge.ledger.CreateRequest;
import dev.converge.ledger.Ledger;
import dev.converge.provisioning.flow.SiteResources;
import dev.converge.provisioning.site.Site;
import dev.converge.provisioning.tenant.Tenants;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code GET /v1/orphans}: details for the tenant's own orphans only, counts for the rest, unavailable leaves reported. */
class OrphanApiTest {

    @Test
    void showsTheOperatorTheOrphansOfOurSitesAndCountsTheRestButNoTenant() {
        try (ApiHarness api = new ApiHarness()) {
            Tenants.Created a = api.tenant();
            String operator = api.operatorToken();
            String lead = api.lead(a.token());
            var r = api.client.postSite(a.token(), "orphans-1", ApiHarness.siteBody(lead, "orphanage"));
            String siteId = r.json().get("site_id").asText();
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    api.client.get("/v1/sites/" + siteId, a.token()).json().get("state").asText().equals("active"));
            assertThat(api.client.get("/v1/orphans", a.token()).status()).as("a tenant's token").isEqualTo(403);
            api.server.scanOrphansNow();
            JsonNode clean = api.client.get("/v1/orphans", operator).json();
            assertThat(clean.get("as_of").asText()).as("served from the last scan, with its time").isNotBlank();
            assertThat(clean.get("items")).as("a converged site leaves no orphan").isEmpty();
            assertThat(clean.get("other_count").asInt()).isZero();
            assertThat(clean.get("complete").asBoolean()).isTrue();

            // resources at a leaf that no ledger entry owns: one tagged as a's site, one untagged
            var repos = api.service().resources().get(SiteResources.REPOSITORY);
            repos.create(new CreateRequest("stray-ours", Ledger.defaultTagFor(Site.subjectOf(api.siteDbId(siteId))), null, Map.of()));
            repos.create(new CreateRequest("stray-nobodys", null, null, Map.of()));

            assertThat(api.client.get("/v1/orphans", operator).json().get("other_count").asInt())
                    .as("no crawl per request: the last scan is shown until the next").isZero();
            api.server.scanOrphansNow();
            var mine = api.client.get("/v1/orphans", operator);
            assertThat(mine.status()).isEqualTo(200);
            assertThat(mine.json().get("items")).hasSize(1);
            JsonNode orphan = mine.json().get("items").get(0);
            assertThat(orphan.get("kind").asText()).isEqualTo(SiteResources.REPOSITORY);
            assertThat(orphan.get("natural_key").asText()).isEqualTo("stray-ours");
            assertThat(orphan.get("site_id").asText()).isEqualTo(siteId);
            assertThat(orphan.get("leaf_id").asText()).isNotBlank();
            assertThat(mine.json().get("other_count").asInt()).isEqualTo(1);

            assertThat(mine.body()).doesNotContain("stray-nobodys");
            assertThat(api.client.get("/v1/orphans", null).status()).isEqualTo(401);
        }
    }

    @Test
    void aLeafThatCannotBeListedIsReportedUnavailableNotA500() {
        try (ApiHarness api = new ApiHarness()) {
            api.fixture.leaves().leafSim().faults().add(FaultRule.of(LeafSim.LICENSE, "list", FaultType.ERROR_BEFORE));
            api.server.scanOrphansNow();
            var r = api.client.get("/v1/orphans", api.operatorToken());
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.json().get("complete").asBoolean()).isFalse();
            JsonNode leaves = r.json().get("leaves");
            assertThat(leaves).anySatisfy(l -> {
                assertThat(l.get("kind").asText()).isEqualTo(SiteResources.LICENSE);
                assertThat(l.get("available").asBoolean()).isFalse();
            });
            assertThat(leaves).filteredOn(l -> !l.get("kind").asText().equals(SiteResources.LICENSE))
                    .isNotEmpty().allSatisfy(l -> assertThat(l.get("available").asBoolean()).isTrue());
        }
    }
}
