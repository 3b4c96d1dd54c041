package dev.converge.provisioning.site;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.leafsim.LeafSim;
import dev.converge.leafsim.fault.FaultRule;
import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.ProvisioningFixture;
import dev.converge.provisioning.tenant.Tenants;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
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
            AtomicLong mostInFlight = new AtomicLong();
            AtomicBoolean sampling = new AtomicBoolean(true);
            Thread sampler = new Thread(() -> {
                while (sampling.get()) {
                    mostInFlight.accumulateAndGet(count(p, "SELECT COUNT(*) FROM pv_site WHERE state = 'provisioning' "
                            + "AND provision_flow_id IS NOT NULL"), Math::max);
                    try {
                        Thread.sleep(10);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            sampler.start();
            for (int i = 0; i < BURST; i++) {
                p.sites().request(t.tenant().id(), new SiteRequest(
                        p.leads().create(t.tenant().id(), "Lead " + i, "b" + i + "@example.com").id(), "bound-" + i,
                        null, null));
            }
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).until(() ->
                    count(p, "SELECT COUNT(*) FROM pv_site WHERE state = 'active'") == BURST);
            sampling.set(false);
            sampler.join();
            int bound = InFlightCap.forHandlers(HANDLERS);
            System.out.printf("worker-bound admission: at most %d provisionings in flight for %d handlers (bound %d)%n",
                    mostInFlight.get(), HANDLERS, bound);
            assertThat(bound).as("about one provisioning a handler").isBetween(HANDLERS, 2 * HANDLERS);
            // the request path and the admitting job may each start one in the same moment
            assertThat(mostInFlight.get()).as("provisionings at once follow the handlers, not the cap")
                    .isLessThanOrEqualTo(bound + 2L).isGreaterThanOrEqualTo(HANDLERS / 2);
        }
    }

    private static long count(Provisioning p, String sql) {
        return p.store().withConnection(c -> {
            try (var st = c.createStatement(); var rs = st.executeQuery(sql)) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }
}
