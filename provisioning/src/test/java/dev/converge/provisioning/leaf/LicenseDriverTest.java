package dev.converge.provisioning.leaf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.leafsim.LeafSim;
import dev.converge.leafsim.fault.FaultRule;
import dev.converge.leafsim.fault.FaultType;
import dev.converge.ledger.AmbiguousOutcome;
import dev.converge.ledger.LeafRejected;
import dev.converge.ledger.LeafResource;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class LicenseDriverTest {
    @RegisterExtension
    static final SimulatedLeaves leaves = new SimulatedLeaves();

    @Test
    void retryingAnAmbiguousCreateWithTheSameKeyGetsTheSameLicense() {
        leaves.sim.faults().add(FaultRule.of(LeafSim.LICENSE, "create", FaultType.RESET_AFTER).times(1));

        assertThatThrownBy(() -> leaves.license().create("idem.example.com", "converge:site-5", "ledger-row-5"))
                .isInstanceOf(AmbiguousOutcome.class);
        LeafResource retried = leaves.license().create("idem.example.com", "converge:site-5", "ledger-row-5");

        assertThat(leaves.inventory(LeafSim.LICENSE).createsOf("idem.example.com")).isEqualTo(1);
        assertThat(retried.leafId()).isEqualTo(leaves.inventory(LeafSim.LICENSE).currentOf("idem.example.com")
                .get(0).id());
    }

    @Test
    void withoutAKeyARetryMakesTheDuplicateTheLedgerExistsToPrevent() {
        leaves.sim.faults().add(FaultRule.of(LeafSim.LICENSE, "create", FaultType.ERROR_AFTER).times(1));

        assertThatThrownBy(() -> leaves.license().create("naive.example.com", "t", null))
                .isInstanceOf(AmbiguousOutcome.class);
        LeafResource second = leaves.license().create("naive.example.com", "t", null);

        List<LeafResource> all = leaves.license().findAll("naive.example.com");
        assertThat(all).hasSize(2);
        assertThat(leaves.license().find("naive.example.com")).as("find answers the oldest")
                .hasValueSatisfying(oldest -> assertThat(oldest.leafId()).isNotEqualTo(second.leafId()));
    }

    @Test
    void reusingAKeyForAnotherDomainIsAPermanentRejection() {
        leaves.license().create("first.example.com", "t", "shared-key");

        assertThatThrownBy(() -> leaves.license().create("second.example.com", "t", "shared-key"))
                .isInstanceOfSatisfying(LeafRejected.class, rejected -> {
                    assertThat(rejected.status()).isEqualTo(422);
                    assertThat(rejected.isTransient()).isFalse();
                });
        assertThat(leaves.inventory(LeafSim.LICENSE).createsOf("second.example.com")).isZero();
    }

    @Test
    void theNameCarriesOurTagAndTheKeyIsTheLeafId() {
        LeafResource license = leaves.license().create("tagged.example.com", "converge:site-77", null);

        assertThat(license.tag()).isEqualTo("converge:site-77");
        assertThat(license.data()).containsEntry("key", license.leafId());
        assertThat(leaves.inventory(LeafSim.LICENSE).currentOf("tagged.example.com").get(0).tag())
                .isEqualTo("converge:site-77");
    }
}
