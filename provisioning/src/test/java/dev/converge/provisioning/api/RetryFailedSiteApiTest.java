package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.converge.leafsim.LeafSim;
import dev.converge.ledger.CreateRequest;
import dev.converge.ledger.LeafResource;
import dev.converge.provisioning.access.Scope;
import dev.converge.provisioning.flow.SiteResources;
import dev.converge.provisioning.tenant.Tenants;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * A provisioning that failed for good is retried by a person: the tenant's approver retries the
 * failed site once its compensation finished, a new provisioning flow runs on the same subdomain,
 * the ledger creates or adopts each resource (never a second one), the site ends active with one
 * welcome email, and its history shows both attempts and who retried, and why.
 */
class RetryFailedSiteApiTest {

    @Test
    void anApproverRetriesAFailedSiteToActiveAndItsHistoryShowsBothAttempts() throws Exception {
        try (ApiHarness api = new ApiHarness()) {
            Tenants.Created t = api.tenant();
            String approver = api.token(t, Scope.APPROVER);
            String subdomain = ApiHarness.subdomain("retried");
            // someone else's repository holds the name at the git host: the first attempt fails for good
            var repositories = api.service().resources().get(SiteResources.REPOSITORY);
            LeafResource blocker = repositories.create(new CreateRequest(subdomain, null, null, Map.of()));
            String lead = api.lead(t.token());
            String id = api.client.postSite(t.token(), "retry-1", ApiHarness.siteBody(lead, subdomain)).json()
                    .get("site_id").asText();
            await().atMost(Duration.ofSeconds(30)).until(() -> state(api, t, id).equals("failed"));
            assertThat(view(api, t, id).get("receipt").get("next_steps").toString()).contains("/retries");

            String retries = "/v1/sites/" + id + "/retries";
            assertThat(api.client.post(retries, t.token(), "{\"reason\":\"x\"}").status()).as("service token").isEqualTo(403);
            assertThat(api.client.post(retries, approver, "{}").status()).as("a reason is required").isEqualTo(422);

            // the person clears the cause, then retries; two retries at once start one attempt
            repositories.delete(blocker);
            ExecutorService two = Executors.newFixedThreadPool(2);
            List<Future<ApiClient.Reply>> replies = new ArrayList<>();
            try {
                for (int i = 0; i < 2; i++) {
                    Callable<ApiClient.Reply> retry = () -> api.client.post(retries, approver,
                            "{\"reason\":\"the name is free again at the git host\"}");
                    replies.add(two.submit(retry));
                }
                List<JsonNode> bodies = new ArrayList<>();
                for (Future<ApiClient.Reply> f : replies) {
                    assertThat(f.get().status()).as(f.get().toString()).isEqualTo(200);
                    bodies.add(f.get().json());
                }
                assertThat(bodies).filteredOn(b -> b.get("applied").asBoolean()).as("one retry applied").hasSize(1);
            } finally {
                two.shutdownNow();
            }

            await().atMost(Duration.ofSeconds(30)).until(() -> state(api, t, id).equals("active"));
            JsonNode site = view(api, t, id);
            assertThat(site.get("subdomain").asText()).isEqualTo(subdomain);
            assertThat(site.get("resources")).allSatisfy(r -> assertThat(r.get("state").asText()).isEqualTo("confirmed"));
            List<JsonNode> history = StreamSupport.stream(site.get("history").spliterator(), false).toList();
            assertThat(history).filteredOn(h -> h.get("flow").asText().equals("provision-site")
                    && h.get("from").isNull()).as("two provisioning attempts").hasSize(2);
            assertThat(history).filteredOn(h -> h.get("flow").asText().equals("provision-site")
                    && h.get("to").asText().equals("failed")).hasSize(1);
            assertThat(history).filteredOn(h -> h.get("flow").asText().equals("retry-site")).singleElement()
                    .satisfies(h -> assertThat(h.get("reason").asText()).contains("approver:")
                            .contains("the name is free again at the git host"));
            // one live resource per natural key at every leaf, one welcome email
            for (String leaf : LeafSim.LEAVES) {
                assertThat(api.fixture.leaves().leafSim().inventory(leaf).current())
                        .filteredOn(r -> r.naturalKey().contains(subdomain)).as("at %s", leaf).hasSize(1);
            }
            await().atMost(Duration.ofSeconds(20)).until(() ->
                    api.fixture.leaves().smtp().countForSite(Long.toString(api.siteDbId(id))) == 1);

            var again = api.client.post(retries, approver, "{\"reason\":\"again\"}");
            assertThat(again.json().get("applied").asBoolean()).as("an active site is not retried").isFalse();
        }
    }

    private static JsonNode view(ApiHarness api, Tenants.Created t, String id) {
        return api.client.get("/v1/sites/" + id, t.token()).json();
    }

    private static String state(ApiHarness api, Tenants.Created t, String id) {
        return view(api, t, id).get("state").asText();
    }
}
