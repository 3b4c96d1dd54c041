package dev.converge.proof.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.leafsim.LeafSim;
import dev.converge.leafsim.fault.FaultRule;
import dev.converge.leafsim.fault.FaultType;
import dev.converge.ledger.LeafResource;
import dev.converge.proof.embedded.EmbeddedLeaves;
import dev.converge.provisioning.config.ProvisioningConfig;
import dev.converge.provisioning.leaf.GitHostDriver;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The demo's own setup survives the faults the demo injects: taking a repository name "as another
 * customer" through a faulting git host is retried until the name is taken, never ending the run.
 */
class RivalRepositoryTest {

    @Test
    void takingANameSurvivesTheGitHostsFaults() {
        try (EmbeddedLeaves leaves = EmbeddedLeaves.start(7)) {
            ProvisioningConfig config = leaves.config(Duration.ofDays(14), Duration.ofSeconds(40), null,
                    Duration.ofMillis(500));
            GitHostDriver gitHost = new GitHostDriver(config.gitHost());
            RivalRepository rival = new RivalRepository(gitHost);
            // every kind of create fault the demo switches on, one after another, before a create goes through
            for (FaultType t : new FaultType[] {FaultType.ERROR_BEFORE, FaultType.THROTTLE, FaultType.HANG_AFTER,
                FaultType.RESET_AFTER}) {
                FaultRule r = FaultRule.of(LeafSim.GITHOST, "create", t).times(1);
                leaves.leafSim().faults().add(t == FaultType.HANG_AFTER ? r.withHangMs(1500) : r);
            }
            assertThat(rival.take("shop-taken-1")).isTrue();
            leaves.leafSim().faults().clear();
            LeafResource repo = gitHost.find("shop-taken-1").orElseThrow();
            assertThat(repo.tag()).isEqualTo(RivalRepository.DESCRIPTION);
            assertThat(gitHost.list()).filteredOn(r -> r.naturalKey().equals("shop-taken-1")).hasSize(1);
        }
    }
}
