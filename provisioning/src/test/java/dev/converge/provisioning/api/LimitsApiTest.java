package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.provisioning.ProvisioningFixture;
import dev.converge.provisioning.access.Scope;
import dev.converge.provisioning.approval.Approvals;
import dev.converge.provisioning.extensions.StandardExtensions;
import dev.converge.provisioning.tenant.Tenants;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Per-tenant quotas and write rates: 429 problems with Retry-After, per tenant, never stored for a key. */
class LimitsApiTest {
    private static ApiHarness api;

    @BeforeAll
    static void start() {
        // the recurring job pv.purge-expired every second, so that a test sees it delete expired approvals
        api = new ApiHarness(new ProvisioningFixture(Duration.ofDays(14), Duration.ofSeconds(1)), ApiOptions.defaults(),
                StandardExtensions.all());
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    private static void limits(Tenants.Created t, Integer sites, Integer leads, Integer approvals, Integer writes) {
        assertThat(api.service().limits().update(t.tenant().id(), sites, leads, approvals, writes)).isTrue();
    }

    @Test
    void aSiteQuotaIsA429ThatTheSameKeyMayRetryOnceThereIsRoom() {
        Tenants.Created t = api.tenant();
        Tenants.Created other = api.tenant();
        limits(t, 1, null, null, null);
        String lead = api.lead(t.token());
        assertThat(api.client.postSite(t.token(), "q-1", ApiHarness.siteBody(lead, ApiHarness.subdomain("q"))).status())
                .isEqualTo(202);
        String second = ApiHarness.siteBody(lead, ApiHarness.subdomain("q"));
        ApiClient.Reply full = api.client.postSite(t.token(), "q-2", second);
        assertThat(full.status()).isEqualTo(429);
        assertThat(full.problem()).isEqualTo("quota-exceeded");
        assertThat(full.header("Retry-After")).isNotBlank();
        assertThat(full.json().get("limit").asInt()).isEqualTo(1);
        assertThat(full.header("Idempotency-Replayed")).isNull();

        String otherLead = api.lead(other.token());
        assertThat(api.client.postSite(other.token(), "q-1", ApiHarness.siteBody(otherLead, ApiHarness.subdomain("q")))
                .status()).as("another tenant's quota is its own").isEqualTo(202);

        limits(t, 2, null, null, null);
        assertThat(api.client.postSite(t.token(), "q-2", second).status()).as("the 429 was not stored for the key")
                .isEqualTo(202);
    }

    @Test
    void leadsAndOpenApprovalsHaveQuotasToo() {
        Tenants.Created t = api.tenant();
        limits(t, null, 1, 1, null);
        String lead = api.lead(t.token());
        ApiClient.Reply more = api.client.post("/v1/leads", t.token(), "{\"name\":\"Bo\",\"email\":\"bo@example.com\"}");
        assertThat(more.status()).isEqualTo(429);
        assertThat(more.problem()).isEqualTo("quota-exceeded");

        ApiClient.Reply site = api.client.postSite(t.token(), "a-1", ApiHarness.siteBody(lead, ApiHarness.subdomain("ap")));
        String siteId = site.json().get("site_id").asText();
        String approver = api.token(t, Scope.APPROVER);
        assertThat(api.client.post("/v1/sites/" + siteId + "/delete-approvals", approver, "").status()).isEqualTo(201);
        ApiClient.Reply second = api.client.post("/v1/sites/" + siteId + "/delete-approvals", approver, "");
        assertThat(second.status()).isEqualTo(429);
        assertThat(second.problem()).isEqualTo("quota-exceeded");
        assertThat(second.header("Retry-After")).isNotBlank();
    }

    @Test
    void writesBeyondTheTenantsRateAre429WithRetryAfterAndReadsAreNotCounted() {
        Tenants.Created t = api.tenant();
        Tenants.Created other = api.tenant();
        limits(t, null, null, null, 3);
        for (int i = 0; i < 3; i++) {
            assertThat(api.client.post("/v1/leads", t.token(), "{\"name\":\"A\",\"email\":\"a@example.com\"}").status())
                    .isEqualTo(201);
        }
        ApiClient.Reply limited = api.client.post("/v1/leads", t.token(), "{\"name\":\"A\",\"email\":\"a@example.com\"}");
        assertThat(limited.status()).isEqualTo(429);
        assertThat(limited.problem()).isEqualTo("rate-limited");
        assertThat(Long.parseLong(limited.header("Retry-After"))).isBetween(1L, 60L);
        assertThat(api.client.get("/v1/sites", t.token()).status()).as("reads are not writes").isEqualTo(200);
        assertThat(api.client.post("/v1/leads", other.token(), "{\"name\":\"A\",\"email\":\"a@example.com\"}").status())
                .as("each tenant has its own rate").isEqualTo(201);
    }

    @Test
    void expiredApprovalsArePurgedByTheRecurringJob() {
        Tenants.Created t = api.tenant();
        String lead = api.lead(t.token());
        String siteId = api.client.postSite(t.token(), "p-1", ApiHarness.siteBody(lead, ApiHarness.subdomain("purge")))
                .json().get("site_id").asText();
        var expiring = new Approvals(api.service().store(), Duration.ofMillis(200)).mint(t.tenant().id(), api.siteDbId(siteId),
                dev.converge.provisioning.approval.ApprovalAction.DELETE_SITE);
        var valid = new Approvals(api.service().store()).mint(t.tenant().id(), api.siteDbId(siteId),
                dev.converge.provisioning.approval.ApprovalAction.DELETE_SITE);
        // the first expires after 200 ms; a run of pv.purge-expired deletes it and keeps the other
        await().atMost(Duration.ofSeconds(15)).until(() ->
                api.count("SELECT COUNT(*) FROM pv_approval WHERE id = ?", expiring.id()) == 0);
        assertThat(api.count("SELECT COUNT(*) FROM pv_approval WHERE id = ?", valid.id())).as("still valid, kept")
                .isEqualTo(1);
        // the job's own outcome is recorded by the completer just after its work committed
        await().atMost(Duration.ofSeconds(15)).until(() ->
                api.count("SELECT COUNT(*) FROM cv_job WHERE kind = 'pv.purge-expired' AND state = 'succeeded'") > 0);
    }
}
