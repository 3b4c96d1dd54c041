package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.converge.provisioning.site.Site;
import dev.converge.provisioning.tenant.Tenants;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;

/** The 202 body is the receipt (R15): every field, and a deadline only from configuration, never invented. */
class ReceiptApiTest {

    @Test
    void theDeadlineComesFromTheConfiguredTrialWindow() {
        try (ApiHarness api = new ApiHarness(Duration.ofDays(14), ApiOptions.defaults())) {
            Tenants.Created t = api.tenant();
            String lead = api.lead(t.token());
            var r = api.client.postSite(t.token(), "receipt-1", "{\"lead_id\":\"" + lead
                    + "\",\"subdomain\":\"bakery\",\"template\":\"shop\",\"plan\":\"pro\"}");
            assertThat(r.status()).isEqualTo(202);
            JsonNode receipt = r.json();
            assertThat(receipt.fieldNames()).toIterable().contains("site_id", "status", "message", "expected_url",
                    "site_details", "account_url", "subscription_deadline", "links");
            String id = receipt.get("site_id").asText();
            Site site = api.service().sites().get(t.tenant().id(), api.siteDbId(id)).orElseThrow();
            assertThat(receipt.get("status").asText()).isEqualTo("provisioning");
            assertThat(receipt.get("message").asText()).isNotBlank();
            assertThat(receipt.get("expected_url").asText()).isEqualTo("https://bakery.sites.example");
            JsonNode details = receipt.get("site_details");
            assertThat(details.get("subdomain").asText()).isEqualTo("bakery");
            assertThat(details.get("template").asText()).isEqualTo("shop");
            assertThat(details.get("plan").asText()).isEqualTo("pro");
            assertThat(details.get("lead_id").asText()).isEqualTo(lead);
            assertThat(receipt.get("account_url").asText()).isEqualTo("https://account.sites.example/sites/" + id);
            Instant deadline = Instant.parse(receipt.get("subscription_deadline").asText());
            assertThat(deadline).isEqualTo(site.createdAt().plus(Duration.ofDays(14)).truncatedTo(ChronoUnit.SECONDS));
            assertThat(receipt.get("subscription_deadline_note").asText()).contains("14 days");
            assertThat(receipt.get("links").get("self").asText()).isEqualTo("/v1/sites/" + id);
            assertThat(receipt.get("next_steps")).isNotEmpty();

            JsonNode shown = api.client.get("/v1/sites/" + id, t.token()).json().get("receipt");
            assertThat(shown.get("subscription_deadline").asText()).isEqualTo(receipt.get("subscription_deadline").asText());
        }
    }

    @Test
    void withoutATrialWindowTheDeadlineIsNullAndTheNoteSaysWhy() {
        try (ApiHarness api = new ApiHarness(null, ApiOptions.defaults())) {
            Tenants.Created t = api.tenant();
            String lead = api.lead(t.token());
            var r = api.client.postSite(t.token(), "receipt-2", ApiHarness.siteBody(lead, "no-trial"));
            assertThat(r.status()).isEqualTo(202);
            JsonNode receipt = r.json();
            assertThat(receipt.has("subscription_deadline")).isTrue();
            assertThat(receipt.get("subscription_deadline").isNull()).isTrue();
            assertThat(receipt.get("subscription_deadline_note").asText()).contains("No trial window is configured")
                    .contains("never state a duration of your own");
            assertThat(receipt.get("site_details").get("template").asText()).isEqualTo("starter");
        }
    }
}
