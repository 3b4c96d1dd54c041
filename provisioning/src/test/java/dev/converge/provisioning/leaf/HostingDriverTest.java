package dev.converge.provisioning.leaf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.leafsim.LeafSim;
import dev.converge.leafsim.fault.FaultRule;
import dev.converge.leafsim.fault.FaultType;
import dev.converge.ledger.AmbiguousOutcome;
import dev.converge.ledger.LeafRejected;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.ResourceExists;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class HostingDriverTest {
    @RegisterExtension
    static final SimulatedLeaves leaves = new SimulatedLeaves();

    @Test
    void aTakenDomainIsResourceExists() {
        leaves.hosting().create("taken.example.com", "converge:site-1", null);

        assertThatThrownBy(() -> leaves.hosting().create("taken.example.com", "converge:site-2", null))
                .isInstanceOf(ResourceExists.class);
        assertThat(leaves.hosting().find("taken.example.com"))
                .hasValueSatisfying(site -> assertThat(site.tag()).isEqualTo("converge:site-1"));
    }

    @Test
    void deploySucceedsRepeatedlyAndCountsAtTheLeaf() {
        LeafResource site = leaves.hosting().create("deploy.example.com", "t", null);

        leaves.hosting().deploy(site.leafId());
        leaves.hosting().deploy(site.leafId());
        assertThat(leaves.inventory(LeafSim.HOSTING).currentOf("deploy.example.com").get(0).fields())
                .containsEntry("deployments", 2);
    }

    @Test
    void deployingAMissingSiteIsAPermanentRejection() {
        assertThatThrownBy(() -> leaves.hosting().deploy("999999"))
                .isInstanceOfSatisfying(LeafRejected.class, rejected -> {
                    assertThat(rejected.status()).isEqualTo(404);
                    assertThat(rejected.isTransient()).isFalse();
                });
    }

    @Test
    void aDeployWhoseAnswerIsLostIsAmbiguousAndSafeToRepeat() {
        LeafResource site = leaves.hosting().create("lost-deploy.example.com", "t", null);
        leaves.sim.faults().add(FaultRule.of(LeafSim.HOSTING, "deploy", FaultType.RESET_AFTER).times(1),
                FaultRule.of(LeafSim.HOSTING, "deploy", FaultType.MALFORMED_AFTER).times(1));

        assertThatThrownBy(() -> leaves.hosting().deploy(site.leafId())).isInstanceOf(AmbiguousOutcome.class);
        assertThatThrownBy(() -> leaves.hosting().deploy(site.leafId())).isInstanceOf(AmbiguousOutcome.class);
        assertThatCode(() -> leaves.hosting().deploy(site.leafId())).doesNotThrowAnyException();
        assertThat(leaves.inventory(LeafSim.HOSTING).currentOf("lost-deploy.example.com").get(0).fields())
                .containsEntry("deployments", 3);
    }

    @Test
    void aThrottledDeployIsTransient() {
        LeafResource site = leaves.hosting().create("throttled-deploy.example.com", "t", null);
        leaves.sim.faults().add(FaultRule.of(LeafSim.HOSTING, "deploy", FaultType.THROTTLE).times(1));

        assertThatThrownBy(() -> leaves.hosting().deploy(site.leafId()))
                .isInstanceOfSatisfying(LeafRejected.class, rejected -> assertThat(rejected.isTransient()).isTrue());
    }
}
