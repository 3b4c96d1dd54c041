package dev.converge.provisioning.site;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.leafsim.LeafSim;
import dev.converge.leafsim.fault.FaultRule;
import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.ProvisioningFixture;
import dev.converge.provisioning.tenant.Tenants;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The workers share their capacity fairly between tenants: one tenant's flood of site requests
 * waits behind its own requests, not in front of another tenant's. The service runs a bounded
 * number of provisionings at once; a request beyond waits (its receipt says so), and a tenant with
 * fewer in flight goes first. Nothing waiting is lost: every site of the flood ends active.
 */
class FairAdmissionTest {
    private static final int IN_FLIGHT = 4;
    private static final int FLOOD = 40;

    @Test
    void aFloodOfOneTenantsSitesDoesNotStarveAnotherTenantsSite() throws Exception {
        try (ProvisioningFixture f = new ProvisioningFixture(c -> c.withProvisioningsInFlight(IN_FLIGHT))) {
            Provisioning p = f.service();
            // every site takes a while at the hosting leaf, as at a real one
            f.leaves().leafSim().faults().add(FaultRule.latency(LeafSim.HOSTING, "create", 150));
            Tenants.Created noisy = p.tenants().create("fair-noisy");
            Tenants.Created quiet = p.tenants().create("fair-quiet");
            InFlightSampler sampler = new InFlightSampler(p, 20);

            List<Long> flood = new ArrayList<>();
            List<String> messages = new ArrayList<>();
            for (int i = 0; i < FLOOD; i++) {
                Sites.Created c = (Sites.Created) p.sites().request(noisy.tenant().id(), new SiteRequest(
                        p.leads().create(noisy.tenant().id(), "Lead " + i, "l" + i + "@example.com").id(), "fair-" + i,
                        null, null));
                flood.add(c.site().id());
                messages.add(c.receipt().message());
            }
            long quietSite = ((Sites.Created) p.sites().request(quiet.tenant().id(), new SiteRequest(
                    p.leads().create(quiet.tenant().id(), "Grace", "grace@example.com").id(), "fair-quiet", null, null)))
                    .site().id();

            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() ->
                    p.sites().get(quiet.tenant().id(), quietSite).orElseThrow().state() == SiteState.ACTIVE);
            long floodActive = InFlightSampler.count(p, "SELECT COUNT(*) FROM pv_site WHERE tenant_id = " + noisy.tenant().id()
                    + " AND state = 'active'");
            System.out.printf("fair admission: the quiet tenant's site was active when %d of the noisy tenant's %d were;"
                    + " at most %d provisionings in flight (cap %d)%n", floodActive, FLOOD, sampler.most(), IN_FLIGHT);
            assertThat(floodActive).as("the quiet tenant's one site does not wait for the noisy tenant's flood")
                    .isLessThan(FLOOD / 2);

            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).until(() ->
                    InFlightSampler.count(p, "SELECT COUNT(*) FROM pv_site WHERE tenant_id = " + noisy.tenant().id()
                            + " AND state = 'active'") == FLOOD);
            sampler.close();
            assertThat(messages).as("the first requests start at once, the rest say they wait")
                    .startsWith("Site provisioning has started.").contains("Site provisioning is queued: it starts as soon "
                            + "as the service has room, in turn with other requests.");
            assertThat(sampler.most()).as("provisionings at once stay near the cap").isLessThanOrEqualTo(2L * IN_FLIGHT);
        }
    }
}
