package dev.converge.proof.embedded;

import dev.converge.leafsim.LeafSim;
import dev.converge.leafsim.LeafSimConfig;
import dev.converge.provisioning.config.ProvisioningConfig;
import dev.converge.provisioning.leaf.ApiToken;
import dev.converge.provisioning.leaf.GitHostConfig;
import dev.converge.provisioning.leaf.HostingConfig;
import dev.converge.provisioning.leaf.HttpLeafConfig;
import dev.converge.provisioning.leaf.LicenseConfig;
import dev.converge.provisioning.leaf.PostgresLeafConfig;
import dev.converge.provisioning.mail.LocalSmtp;
import java.time.Duration;

/**
 * The simulated leaves and a local SMTP server, started in this process, with a service
 * configuration pointing at them: what the demo and the tests run against.
 */
public final class EmbeddedLeaves implements AutoCloseable {
    private final LeafSim leafSim;
    private final LocalSmtp smtp;

    private EmbeddedLeaves(LeafSim leafSim, LocalSmtp smtp) {
        this.leafSim = leafSim;
        this.smtp = smtp;
    }

    public static EmbeddedLeaves start(long seed) {
        LeafSim sim = LeafSim.start(LeafSimConfig.builder().seed(seed).build());
        try {
            return new EmbeddedLeaves(sim, LocalSmtp.start());
        } catch (RuntimeException e) {
            sim.close();
            throw e;
        }
    }

    public LeafSim leafSim() {
        return leafSim;
    }

    public LocalSmtp smtp() {
        return smtp;
    }

    /**
     * A configuration for these leaves.
     *
     * @param database the PostgreSQL leaf for per-site databases, or null for none
     * @param callTimeout how long a driver waits for a leaf answer
     */
    public ProvisioningConfig config(Duration trialWindow, Duration flowDeadline, PostgresLeafConfig database,
            Duration callTimeout) {
        return new ProvisioningConfig("sites.example", trialWindow, null, "https://account.sites.example/sites/{site_id}",
                flowDeadline, Duration.ofHours(24),
                new GitHostConfig(http(LeafSim.GITHOST, callTimeout), "converge-sites", true),
                HostingConfig.current(http(LeafSim.HOSTING, callTimeout), "converge", "srv-1"),
                new LicenseConfig(http(LeafSim.LICENSE, callTimeout)),
                database,
                smtp.config("welcome@sites.example"),
                token -> smtp.received().stream().anyMatch(m -> token.equals(m.sendToken())), null, null, 0);
    }

    private HttpLeafConfig http(String leaf, Duration timeout) {
        return HttpLeafConfig.of(leafSim.leafUrl(leaf), ApiToken.of(leafSim.config().token(leaf)))
                .withTimeouts(Duration.ofSeconds(2), timeout);
    }

    @Override
    public void close() {
        smtp.close();
        leafSim.close();
    }
}
