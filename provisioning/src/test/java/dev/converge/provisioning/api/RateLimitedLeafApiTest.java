package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.leafsim.LeafSim;
import dev.converge.leafsim.fault.FaultRule;
import dev.converge.leafsim.fault.FaultType;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A leaf that answers 429 with Retry-After: the step is released for the leaf's delay and the site
 * still converges; the throttled deliveries record no error, because a busy leaf is not a failure.
 */
class RateLimitedLeafApiTest {

    @Test
    void aThrottledCreateIsReleasedForTheLeafsDelayNotFailedAndTheSiteConverges() {
        try (ApiHarness api = new ApiHarness()) {
            api.fixture.leaves().leafSim().faults()
                    .add(new FaultRule(LeafSim.HOSTING, "create", FaultType.THROTTLE, null, 2, null, null, 1));
            var tenant = api.tenant();
            String lead = api.lead(tenant.token());
            long started = System.nanoTime();
            var r = api.client.postSite(tenant.token(), "throttled-1", ApiHarness.siteBody(lead,
                    ApiHarness.subdomain("throttled")));
            assertThat(r.status()).isEqualTo(202);
            String siteId = r.json().get("site_id").asText();

            await().atMost(Duration.ofSeconds(30)).until(() ->
                    api.client.get("/v1/sites/" + siteId, tenant.token()).json().get("state").asText().equals("active"));

            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("two Retry-After: 1 waits were honoured")
                    .isGreaterThanOrEqualTo(Duration.ofSeconds(2));
            String hostingStep = "site.create-resource";
            assertThat(api.count("select count(*) from cv_job where kind = ? and payload like ? and attempt = 3",
                    hostingStep, "%hosting.site%")).as("two throttled deliveries, then the create").isEqualTo(1);
            assertThat(api.count("select count(*) from cv_job where kind = ? and payload like ? and last_error is not null",
                    hostingStep, "%hosting.site%")).as("a throttled delivery records no failure").isZero();
        }
    }
}
