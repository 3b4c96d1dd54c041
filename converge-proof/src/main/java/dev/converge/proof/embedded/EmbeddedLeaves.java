package dev.converge.proof.embedded;

import dev.converge.leafsim.LeafSim;
import dev.converge.leafsim.LeafSimConfig;
import dev.converge.provisioning.config.ProvisioningConfig;
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
        return ProvisioningConfig.local(leafSim::leafUrl, leafSim.config()::token, callTimeout, smtp,
                trialWindow, flowDeadline, database);
    }

    @Override
    public void close() {
        smtp.close();
        leafSim.close();
    }
}
