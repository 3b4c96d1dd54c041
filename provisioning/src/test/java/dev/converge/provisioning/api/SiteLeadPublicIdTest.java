package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.converge.provisioning.tenant.Tenants;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/**
 * Sites and leads are known outside by random public ids ({@code site_}/{@code lead_} and 32 hex
 * digits) that say nothing of how many there are: in answers, links, Location, the account URL and
 * the list's cursor. Paths and {@code lead_id} take them; the database id a node of the previous
 * release gave out is still taken; another tenant's public id is the same 404 as a made-up one.
 */
class SiteLeadPublicIdTest {

    @Test
    void sitesAndLeadsAreNamedByRandomPublicIds() {
        try (ApiHarness api = new ApiHarness()) {
            Tenants.Created a = api.tenant();
            Tenants.Created b = api.tenant();
            ApiClient.Reply lead = api.client.post("/v1/leads", a.token(), "{\"name\":\"Ada\",\"email\":\"ada@example.com\"}");
            String leadId = lead.json().get("id").asText();
            assertThat(leadId).matches("lead_[0-9a-f]{32}");
            assertThat(lead.header("Location")).isEqualTo("/v1/leads/" + leadId);

            String sub = ApiHarness.subdomain("pub");
            ApiClient.Reply created = api.client.postSite(a.token(), "pub-1",
                    "{\"lead_id\":\"" + leadId + "\",\"subdomain\":\"" + sub + "\"}");
            assertThat(created.status()).as(created.body()).isEqualTo(202);
            JsonNode receipt = created.json();
            String siteId = receipt.get("site_id").asText();
            assertThat(siteId).matches("site_[0-9a-f]{32}");
            assertThat(created.header("Location")).isEqualTo("/v1/sites/" + siteId);
            assertThat(receipt.get("site_details").get("lead_id").asText()).isEqualTo(leadId);
            assertThat(receipt.get("links").get("self").asText()).isEqualTo("/v1/sites/" + siteId);
            assertThat(receipt.get("links").get("lead").asText()).isEqualTo("/v1/leads/" + leadId);
            assertThat(receipt.get("account_url").asText()).endsWith("/" + siteId);
            assertThat(receipt.get("next_steps").toString()).contains(siteId);

            long dbId = api.count("SELECT id FROM pv_site WHERE public_id = ?", siteId);
            long leadDbId = api.count("SELECT id FROM pv_lead WHERE public_id = ?", leadId);
            ApiClient.Reply read = api.client.get("/v1/sites/" + siteId, a.token());
            assertThat(read.status()).as(read.body()).isEqualTo(200);
            assertThat(read.json().get("site_id").asText()).isEqualTo(siteId);
            assertThat(read.json().get("lead_id").asText()).isEqualTo(leadId);
            assertThat(read.body()).doesNotContain("/v1/sites/" + dbId + "\"").doesNotContain("\"site_id\":" + dbId);
            assertThat(api.client.get("/v1/leads/" + leadId, a.token()).json().get("id").asText()).isEqualTo(leadId);

            assertThat(api.client.get("/v1/sites/" + siteId, b.token()).status()).as("another tenant's").isEqualTo(404);
            assertThat(api.client.get("/v1/leads/" + leadId, b.token()).status()).as("another tenant's").isEqualTo(404);
            assertThat(api.client.get("/v1/sites/site_" + "0".repeat(32), a.token()).status()).as("made up").isEqualTo(404);
            assertThat(api.client.get("/v1/sites/site_xyz", a.token()).status()).as("malformed").isEqualTo(400);
            assertThat(api.client.get("/v1/sites/" + leadId, a.token()).status()).as("a lead's id").isEqualTo(400);
            ApiClient.Reply wrongKind = api.client.postSite(a.token(), "pub-2",
                    "{\"lead_id\":\"" + siteId + "\",\"subdomain\":\"" + ApiHarness.subdomain("pub") + "\"}");
            assertThat(wrongKind.status()).isEqualTo(422);
            assertThat(wrongKind.body()).contains("lead_id");
            ApiClient.Reply othersLead = api.client.postSite(b.token(), "pub-3",
                    "{\"lead_id\":\"" + leadId + "\",\"subdomain\":\"" + ApiHarness.subdomain("pub") + "\"}");
            assertThat(othersLead.status()).as("another tenant's lead").isEqualTo(422);

            // what a node of the previous release gave out still works
            assertThat(api.client.get("/v1/sites/" + dbId, a.token()).json().get("site_id").asText()).isEqualTo(siteId);
            assertThat(api.client.get("/v1/leads/" + leadDbId, a.token()).json().get("id").asText()).isEqualTo(leadId);
            ApiClient.Reply legacyBody = api.client.postSite(a.token(), "pub-4",
                    "{\"lead_id\":" + leadDbId + ",\"subdomain\":\"" + ApiHarness.subdomain("pub") + "\"}");
            assertThat(legacyBody.status()).as(legacyBody.body()).isEqualTo(202);

            // the list and its cursor
            ApiClient.Reply page = api.client.get("/v1/sites?limit=1", a.token());
            JsonNode item = page.json().get("items").get(0);
            assertThat(item.get("site_id").asText()).isEqualTo(siteId);
            assertThat(item.get("lead_id").asText()).isEqualTo(leadId);
            String cursor = page.json().get("next_cursor").asText();
            assertThat(new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8)).as("no database id")
                    .isEqualTo("s2:" + siteId);
            ApiClient.Reply next = api.client.get("/v1/sites?limit=1&cursor=" + cursor, a.token());
            assertThat(next.json().get("items").get(0).get("site_id").asText()).isNotEqualTo(siteId);
            String legacyCursor = Base64.getUrlEncoder().withoutPadding()
                    .encodeToString(("s1:" + dbId).getBytes(StandardCharsets.UTF_8));
            assertThat(api.client.get("/v1/sites?limit=1&cursor=" + legacyCursor, a.token()).json().get("items").get(0)
                    .get("site_id").asText()).as("a previous release's cursor").isEqualTo(next.json().get("items").get(0)
                    .get("site_id").asText());
            assertThat(api.client.get("/v1/sites?cursor=" + cursor, b.token()).status())
                    .as("another tenant's cursor").isEqualTo(400);
        }
    }
}
