package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.converge.ledger.CreateRequest;
import dev.converge.provisioning.flow.SiteResources;
import dev.converge.provisioning.tenant.Tenants;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A tenant sees a failed site's stable code and a short safe message; the leaf's words go to the log only. */
class SiteFailureApiTest {

    @Test
    void aFailedSiteShowsAStableCodeAndNoLeafPathsOrgsOrClassNames() {
        try (ApiHarness api = new ApiHarness()) {
            Tenants.Created t = api.tenant();
            String subdomain = ApiHarness.subdomain("taken");
            // someone else's repository already holds the name at the git host
            api.service().resources().get(SiteResources.REPOSITORY)
                    .create(new CreateRequest(subdomain, null, null, Map.of()));
            String lead = api.lead(t.token());
            String id = api.client.postSite(t.token(), "fail-1", ApiHarness.siteBody(lead, subdomain)).json()
                    .get("site_id").asText();
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    api.client.get("/v1/sites/" + id, t.token()).json().get("state").asText().equals("failed"));

            JsonNode site = api.client.get("/v1/sites/" + id, t.token()).json();
            assertThat(site.get("failure_code").asText()).isEqualTo("name_taken_at_provider");
            String shown = site.get("failure").asText() + " " + site.get("history").toString();
            assertThat(shown).doesNotContain("converge-sites").doesNotContain("githost").doesNotContain("git.repository")
                    .doesNotContain("Exception").doesNotContain("Conflict").doesNotContain("/orgs/")
                    .doesNotContainPattern("srv-\\d");
        }
    }
}
