package dev.converge.provisioning.site;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.leafsim.LeafSim;
import dev.converge.leafsim.fault.FaultRule;
import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.ProvisioningFixture;
import dev.converge.provisioning.tenant.Tenants;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * By default, the provisionings in flight follow the workers that run them: a burst of requests
 * larger than the handlers can work starts only about as many flows as there are handler threads (8 in the
 * fixture), and the rest wait their turn, where before all of them started at once and shared the queue, each
 * taking as long as the whole burst. Nothing waiting is lost: every site ends active.
 */
class WorkerBoundAdmissionTest {
    private static final int BURST = 40;
    private static final int HANDLERS = 8; // ProvisioningFixture's concurrency

    @Test
    void aBurstStartsAboutAsManyProvisioningsAsTheWorkersHaveHandlers() throws Exception {
        try (ProvisioningFixture f = new ProvisioningFixture()) {
            Provisioning p = f.service();
            assertThat(p.config().provisioningsInFlight()).as("the default: follow the workers").isZero();
            f.leaves().leafSim().faults().add(FaultRule.latency(LeafSim.HOSTING, "create", 100));
            Tenants.Created t = p.tenants().create("bound");
            InFlightSampler sampler = new InFlightSampler(p, 10);
            for (int i = 0; i < BURST; i++) {
                p.sites().request(t.tenant().id(), new SiteRequest(
                        p.leads().create(t.tenant().id(), "Lead " + i, "b" + i + "@example.com").id(), "bound-" + i,
                        null, null));
            }
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).until(() ->
                    InFlightSampler.count(p, "SELECT COUNT(*) FROM pv_site WHERE state = 'active'") == BURST);
            sampler.close();
            int bound = InFlightCap.forHandlers(HANDLERS);
            System.out.printf("worker-bound admission: at most %d provisionings in flight for %d handlers (bound %d)%n",
                    sampler.most(), HANDLERS, bound);
            assertThat(bound).as("about one provisioning a handler").isBetween(HANDLERS, 2 * HANDLERS);
            // the request path and the admitting job may each start one in the same moment
            assertThat(sampler.most()).as("provisionings at once follow the handlers, not the cap")
                    .isLessThanOrEqualTo(bound + 2L).isGreaterThanOrEqualTo(HANDLERS / 2);
        }
    }
}
