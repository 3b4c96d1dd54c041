package dev.converge.provisioning.site;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.leafsim.LeafSim;
import dev.converge.leafsim.fault.FaultRule;
import dev.converge.leafsim.fault.FaultType;
import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.ProvisioningFixture;
import dev.converge.provisioning.config.ProvisioningConfig;
import dev.converge.provisioning.lead.LeadStatus;
import dev.converge.provisioning.tenant.Tenants;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A lead is a customer while one of its sites is active. A site whose teardown gave up (the leaf
 * refused every delete) is no longer active, it needs a person: its lead is a customer no more,
 * unless another of its sites is active. The chaos run at 2,000 sites found leads left customers
 * with no active site, each one's site in needs_attention after its trial's teardown failed.
 */
class TeardownFailureLeadTest {

    @Test
    void aSiteWhoseTeardownGaveUpLeavesItsLeadALeadUnlessAnotherSiteIsActive() {
        // a teardown the leaf refuses retries until its flow's deadline (three times a provisioning's): 4 s here
        try (ProvisioningFixture f = new ProvisioningFixture(c -> new ProvisioningConfig(c.baseDomain(), c.trialWindow(),
                c.trialReminder(), c.accountUrl(), Duration.ofSeconds(4), c.idempotencyTtl(), c.gitHost(), c.hosting(),
                c.license(), c.database(), c.smtp(), c.mailLookup(), c.tags(), c.subdomainHold(), c.provisioningsInFlight()))) {
            Provisioning p = f.service();
            long tenant = p.tenants().create("teardown-gives-up").tenant().id();
            long alone = p.leads().create(tenant, "Ada", "ada@example.com").id();
            long twice = p.leads().create(tenant, "Bea", "bea@example.com").id();
            long aloneSite = active(p, tenant, alone, "gives-up-a");
            long kept = active(p, tenant, twice, "gives-up-b");
            long twiceSite = active(p, tenant, twice, "gives-up-c");
            assertThat(status(p, tenant, alone)).isEqualTo(LeadStatus.CUSTOMER);

            f.leaves().leafSim().faults().add(FaultRule.of(LeafSim.HOSTING, "delete", FaultType.ERROR_BEFORE));
            p.sites().delete(tenant, aloneSite).orElseThrow();
            p.sites().delete(tenant, twiceSite).orElseThrow();
            for (long id : new long[] {aloneSite, twiceSite}) {
                await().atMost(Duration.ofSeconds(60)).until(() -> p.sites().get(tenant, id).orElseThrow().state(),
                        s -> s == SiteState.NEEDS_ATTENTION);
            }

            assertThat(status(p, tenant, alone)).as("the lead whose only site needs attention").isEqualTo(LeadStatus.LEAD);
            assertThat(p.sites().get(tenant, kept).orElseThrow().state()).isEqualTo(SiteState.ACTIVE);
            assertThat(status(p, tenant, twice)).as("the lead with another active site").isEqualTo(LeadStatus.CUSTOMER);
        }
    }

    private static long active(Provisioning p, long tenant, long lead, String subdomain) {
        long id = ((Sites.Created) p.sites().request(tenant, new SiteRequest(lead, subdomain, null, null))).site().id();
        await().atMost(Duration.ofSeconds(60)).until(() -> p.sites().get(tenant, id).orElseThrow().state(),
                s -> s == SiteState.ACTIVE);
        return id;
    }

    private static LeadStatus status(Provisioning p, long tenant, long lead) {
        return p.leads().get(tenant, lead).orElseThrow().status();
    }
}
