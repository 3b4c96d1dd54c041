package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.converge.leafsim.LeafSim;
import dev.converge.provisioning.access.Scope;
import dev.converge.provisioning.tenant.Tenants;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A trial that really ends, over the API with a short trial (8 s, reminder 2 s before): a site not
 * subscribed gets one reminder email and is then taken down through its teardown flow (nothing left
 * at the leaves); a subscribed one outlives its deadline and gets no reminder.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TrialApiTest {
    private static final Duration TRIAL = Duration.ofSeconds(8);
    private ApiHarness api;
    private Tenants.Created tenant;
    private String lead;

    @BeforeAll
    void start() {
        api = new ApiHarness(TRIAL, ApiOptions.defaults());
        tenant = api.tenant();
        lead = api.lead(tenant.token());
    }

    @AfterAll
    void stop() {
        api.close();
    }

    private String request(String prefix) {
        String sub = ApiHarness.subdomain(prefix);
        var r = api.client.postSite(tenant.token(), "k-" + sub, ApiHarness.siteBody(lead, sub));
        assertThat(r.status()).as(r.toString()).isEqualTo(202);
        assertThat(r.json().get("subscription").asText()).isEqualTo("trial");
        assertThat(r.json().get("trial_days_left").asInt()).isEqualTo(1);
        return r.json().get("site_id").asText();
    }

    private JsonNode view(String id) {
        return api.client.get("/v1/sites/" + id, tenant.token()).json();
    }

    private long reminders(String id) {
        return api.fixture.leaves().smtp().remindersForSite(Long.toString(api.siteDbId(id)));
    }

    @Test
    void aTrialNotSubscribedIsRemindedOnceThenTakenDownByItsTeardown() {
        String id = request("lapse");
        String subdomain = view(id).get("subdomain").asText();
        Instant deadline = Instant.parse(view(id).get("receipt").get("subscription_deadline").asText());
        await().atMost(Duration.ofSeconds(30)).until(() -> view(id).get("state").asText().equals("active"));

        await().atMost(Duration.ofSeconds(30)).until(() -> reminders(id) == 1);
        assertThat(Instant.now()).as("the reminder comes before the deadline").isBefore(deadline.plusSeconds(1));
        await().atMost(Duration.ofSeconds(40)).until(() -> view(id).get("state").asText().equals("deleted"));

        JsonNode shown = view(id);
        assertThat(shown.get("receipt").get("subscription").asText()).isEqualTo("expired");
        assertThat(shown.get("receipt").get("trial_days_left").isNull()).isTrue();
        assertThat(shown.get("receipt").get("subscription_deadline_note").asText()).contains("without a subscription");
        assertThat(shown.get("resources")).isNotEmpty().allSatisfy(r ->
                assertThat(r.get("state").asText()).isIn("deleted", "released"));
        assertThat(shown.get("history").toString()).contains("teardown-site");
        for (String leaf : LeafSim.LEAVES) {
            assertThat(api.fixture.leaves().leafSim().inventory(leaf).current())
                    .as("nothing of %s left at %s", subdomain, leaf)
                    .noneMatch(r -> r.naturalKey().contains(subdomain));
        }
        assertThat(reminders(id)).as("one reminder however often the scan ran").isEqualTo(1);
        assertThat(api.fixture.leaves().smtp().countForSite(Long.toString(api.siteDbId(id)))).as("the welcome email").isEqualTo(1);

        var late = api.client.post("/v1/sites/" + id + "/subscription", tenant.token(), "");
        assertThat(late.status()).as(late.toString()).isEqualTo(409);
        assertThat(late.problem()).isEqualTo("not-subscribable");
        assertThat(late.json().get("subscription").asText()).isEqualTo("expired");
        assertThat(late.json().get("detail").asText()).contains("trial of this site ended");
    }

    @Test
    void aSubscribedSiteOutlivesItsTrialAndGetsNoReminder() throws Exception {
        String id = request("keep");
        var first = api.client.post("/v1/sites/" + id + "/subscription", tenant.token(), "");
        assertThat(first.status()).as(first.toString()).isEqualTo(200);
        assertThat(first.json().get("receipt").get("subscription").asText()).isEqualTo("subscribed");
        assertThat(first.json().get("receipt").get("trial_days_left").isNull()).isTrue();
        var again = api.client.post("/v1/sites/" + id + "/subscription", tenant.token(), "");
        assertThat(again.status()).as("a repeat answers the same").isEqualTo(200);
        assertThat(again.json().get("receipt").get("subscription").asText()).isEqualTo("subscribed");

        Thread.sleep(TRIAL.plusSeconds(4).toMillis()); // past the deadline and several scans
        JsonNode shown = view(id);
        assertThat(shown.get("state").asText()).isEqualTo("active");
        assertThat(shown.get("receipt").get("subscription").asText()).isEqualTo("subscribed");
        assertThat(reminders(id)).isZero();
    }

    @Test
    void onlyTheTenantsServiceTokenSubscribesAndOnlyItsOwnSites() {
        String id = request("scope");
        var agent = api.client.post("/v1/sites/" + id + "/subscription", api.token(tenant, Scope.AGENT), "");
        assertThat(agent.status()).isEqualTo(403);
        var approver = api.client.post("/v1/sites/" + id + "/subscription", api.token(tenant, Scope.APPROVER), "");
        assertThat(approver.status()).isEqualTo(403);
        var other = api.client.post("/v1/sites/" + id + "/subscription", api.tenant().token(), "");
        assertThat(other.status()).isEqualTo(404);
        var bad = api.client.post("/v1/sites/x/subscription", tenant.token(), "");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(view(id).get("receipt").get("subscription").asText()).isEqualTo("trial");
    }
}
