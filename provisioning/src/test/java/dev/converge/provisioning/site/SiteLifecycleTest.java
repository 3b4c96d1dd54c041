package dev.converge.provisioning.site;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.leafsim.LeafSim;
import dev.converge.provisioning.ProvisioningFixture;
import dev.converge.provisioning.lead.Lead;
import dev.converge.provisioning.lead.LeadStatus;
import dev.converge.provisioning.tenant.Tenants;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A site from request to active to deleted, against the simulated leaves over real HTTP and real SMTP. */
class SiteLifecycleTest {

    @Test
    void aSiteIsProvisionedOnceConfirmedOnlyWhenRealAndTornDownCompletely() {
        try (ProvisioningFixture f = new ProvisioningFixture()) {
            var p = f.service();
            Tenants.Created tenant = p.tenants().create("acme");
            Lead lead = p.leads().create(tenant.tenant().id(), "Ada", "ada@example.com");
            var outcome = p.sites().request(tenant.tenant().id(), new SiteRequest(lead.id(), "ada-shop", null, null));
            assertThat(outcome).isInstanceOf(Sites.Created.class);
            Site site = ((Sites.Created) outcome).site();
            assertThat(((Sites.Created) outcome).receipt().status()).isEqualTo("provisioning");
            assertThat(p.leads().get(tenant.tenant().id(), lead.id()).orElseThrow().status()).isEqualTo(LeadStatus.LEAD);

            await().atMost(Duration.ofSeconds(30)).until(() ->
                    p.sites().get(tenant.tenant().id(), site.id()).orElseThrow().state() == SiteState.ACTIVE);
            assertThat(p.leads().get(tenant.tenant().id(), lead.id()).orElseThrow().status()).isEqualTo(LeadStatus.CUSTOMER);
            for (String leaf : LeafSim.LEAVES) {
                assertThat(f.leaves().leafSim().inventory(leaf).current()).as(leaf).hasSize(1);
            }
            // the welcome email goes out after the confirmation, from the outbox job it queued
            await().atMost(Duration.ofSeconds(30)).until(() -> f.leaves().smtp().countForSite(Long.toString(site.id())) == 1);
            SiteView view = p.sites().view(tenant.tenant().id(), site.id()).orElseThrow();
            assertThat(view.resources()).hasSize(3).allMatch(r -> r.state().equals("confirmed") && r.leafId() != null);

            var again = p.sites().request(tenant.tenant().id(), new SiteRequest(lead.id(), "ada-shop", null, null));
            assertThat(again).isInstanceOf(Sites.SubdomainTaken.class);
            assertThat(((Sites.SubdomainTaken) again).sameLead()).map(Site::id).contains(site.id());

            p.sites().delete(tenant.tenant().id(), site.id());
            p.sites().delete(tenant.tenant().id(), site.id());
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    p.sites().get(tenant.tenant().id(), site.id()).orElseThrow().state() == SiteState.DELETED);
            for (String leaf : LeafSim.LEAVES) {
                assertThat(f.leaves().leafSim().inventory(leaf).current()).as(leaf).isEmpty();
            }
            assertThat(p.leads().get(tenant.tenant().id(), lead.id()).orElseThrow().status()).isEqualTo(LeadStatus.LEAD);
            assertThat(p.sites().request(tenant.tenant().id(), new SiteRequest(lead.id(), "ada-shop", null, null)))
                    .as("the subdomain is free again").isInstanceOf(Sites.Created.class);
        }
    }
}
