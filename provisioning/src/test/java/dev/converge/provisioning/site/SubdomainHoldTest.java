package dev.converge.provisioning.site;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.ProvisioningFixture;
import dev.converge.provisioning.lead.Lead;
import dev.converge.provisioning.tenant.Tenants;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A subdomain released by a deleted site stays its tenant's for the hold (default 30 days): the
 * tenant may take it again at once, another tenant only once the hold has passed.
 */
class SubdomainHoldTest {

    @Test
    void aReleasedSubdomainIsHeldForItsTenant() {
        try (ProvisioningFixture f = new ProvisioningFixture()) {
            Provisioning p = f.service();
            Tenants.Created a = p.tenants().create("hold-a");
            Tenants.Created b = p.tenants().create("hold-b");
            Site site = createAndDelete(p, a, "held-one");

            var byOther = p.sites().request(b.tenant().id(), new SiteRequest(lead(p, b).id(), "held-one", null, null));
            assertThat(byOther).as("another tenant, within the hold").isInstanceOf(Sites.SubdomainTaken.class);
            assertThat(((Sites.SubdomainTaken) byOther).sameLead()).as("says nothing of the holder").isEmpty();

            var again = p.sites().request(a.tenant().id(), new SiteRequest(lead(p, a).id(), "held-one", null, null));
            assertThat(again).as("its own tenant, at once").isInstanceOf(Sites.Created.class);
            assertThat(((Sites.Created) again).site().id()).isNotEqualTo(site.id());
        }
    }

    @Test
    void anotherTenantMayTakeItOnceTheHoldHasPassed() throws InterruptedException {
        try (ProvisioningFixture f = new ProvisioningFixture(c -> c.withSubdomainHold(Duration.ofSeconds(2)))) {
            Provisioning p = f.service();
            Tenants.Created a = p.tenants().create("hold-c");
            Tenants.Created b = p.tenants().create("hold-d");
            createAndDelete(p, a, "held-two");
            long bLead = lead(p, b).id();
            assertThat(p.sites().request(b.tenant().id(), new SiteRequest(bLead, "held-two", null, null)))
                    .as("within the hold").isInstanceOf(Sites.SubdomainTaken.class);
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(250)).until(() ->
                    p.sites().request(b.tenant().id(), new SiteRequest(bLead, "held-two", null, null)) instanceof Sites.Created);
            assertThat(p.sites().request(a.tenant().id(), new SiteRequest(lead(p, a).id(), "held-two", null, null)))
                    .as("now the other tenant's").isInstanceOf(Sites.SubdomainTaken.class);
        }
    }

    private static Lead lead(Provisioning p, Tenants.Created t) {
        return p.leads().create(t.tenant().id(), "Ada", "ada@example.com");
    }

    private static Site createAndDelete(Provisioning p, Tenants.Created t, String subdomain) {
        long tenant = t.tenant().id();
        Site site = ((Sites.Created) p.sites().request(tenant, new SiteRequest(lead(p, t).id(), subdomain, null, null))).site();
        await().atMost(Duration.ofSeconds(30)).until(() -> p.sites().get(tenant, site.id()).orElseThrow().state() == SiteState.ACTIVE);
        p.sites().delete(tenant, site.id());
        await().atMost(Duration.ofSeconds(30)).until(() -> p.sites().get(tenant, site.id()).orElseThrow().state() == SiteState.DELETED);
        return site;
    }
}
