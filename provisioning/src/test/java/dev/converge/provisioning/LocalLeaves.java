package dev.converge.provisioning;

import dev.converge.leafsim.LeafSim;
import dev.converge.leafsim.LeafSimConfig;
import dev.converge.provisioning.config.ProvisioningConfig;
import dev.converge.provisioning.leaf.PostgresLeafConfig;
import dev.converge.provisioning.mail.LocalSmtp;
import java.time.Duration;

/**
 * The simulated leaves and a local SMTP server for the service's tests. (The proof's demo has its
 * own, {@code dev.converge.proof.embedded.EmbeddedLeaves}: the service never ships the simulator.)
 */
public record LocalLeaves(LeafSim leafSim, LocalSmtp smtp) implements AutoCloseable {

    public static LocalLeaves start(long seed) {
        LeafSim sim = LeafSim.start(LeafSimConfig.builder().seed(seed).build());
        try {
            return new LocalLeaves(sim, LocalSmtp.start());
        } catch (RuntimeException e) {
            sim.close();
            throw e;
        }
    }

    /** {@link ProvisioningConfig#local} for these leaves; {@code database} null for none. */
    public ProvisioningConfig config(Duration trialWindow, Duration flowDeadline, PostgresLeafConfig database,
            Duration callTimeout) {
        return ProvisioningConfig.local(leafSim::leafUrl, leafSim.config()::token, callTimeout, smtp,
                trialWindow, flowDeadline, database);
    }

    @Override
    public void close() {
        try (leafSim; smtp) {
            // closed in reverse: the mail server, then the simulator, each even if the other fails
        }
    }
}
