package dev.converge.proof.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.provisioning.limits.TenantLimits;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The chaos tenant may hold every site the run requests: with the default quota of 1,000 sites, a
 * 2,000-site run had 1,004 accepted and the client retrying the quota's 429 for the rest until the
 * run was stopped.
 */
class ChaosTenantLimitsTest {

    @Test
    void aRunOfTwoThousandSitesFitsItsTenant() {
        ChaosSettings s = ChaosSettings.newBuilder().sites(2000).traffic(Duration.ofSeconds(60)).build();
        TenantLimits l = ChaosRun.tenantLimits(s);
        assertThat(l.maxSites()).isGreaterThanOrEqualTo(2000);
        assertThat(l.maxLeads()).isGreaterThanOrEqualTo(2000);
        assertThat(l.writesPerMinute()).as("a lead, a site, a resend and a delete a site, in one minute")
                .isGreaterThanOrEqualTo(2000 * 3);
    }

    @Test
    void aSmallRunKeepsTheDefaults() {
        ChaosSettings s = ChaosSettings.newBuilder().sites(300).traffic(Duration.ofSeconds(60)).build();
        assertThat(ChaosRun.tenantLimits(s)).isEqualTo(TenantLimits.DEFAULTS);
    }
}
