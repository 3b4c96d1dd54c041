package dev.converge.provisioning.leaf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.leafsim.LeafSim;
import dev.converge.leafsim.fault.FaultRule;
import dev.converge.leafsim.fault.FaultType;
import dev.converge.ledger.AmbiguousOutcome;
import dev.converge.ledger.LeafRejected;
import dev.converge.ledger.LeafResource;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every HTTP driver's create against every fault of the simulated leaf: the driver's verdict, the
 * fault's hit counter, and the leaf's own inventory saying whether the create really happened.
 * Where it did, a lookup by natural key finds it with our tag, which is what lets the ledger adopt
 * it instead of creating again.
 */
class CreateClassificationTest {
    @RegisterExtension
    static final SimulatedLeaves leaves = new SimulatedLeaves();

    @ParameterizedTest
    @ValueSource(strings = {LeafSim.GITHOST, LeafSim.HOSTING, LeafSim.LICENSE})
    void aCleanCreateIsConfirmedWithTheLeafsIdAndOurTag(String leaf) {
        String key = SimulatedLeaves.uniqueKey(leaf);
        LeafResource created = leaves.driver(leaf).create(key, "converge:site-" + key, "idem-" + key);

        assertThat(created.naturalKey()).isEqualTo(key);
        assertThat(created.tag()).isEqualTo("converge:site-" + key);
        assertThat(created.leafId()).isNotBlank();
        assertThat(leaves.driver(leaf).find(key)).contains(created);
        assertThat(leaves.inventory(leaf).createsOf(key)).isEqualTo(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {LeafSim.GITHOST, LeafSim.HOSTING, LeafSim.LICENSE})
    void latencyWithinTheTimeoutIsStillASuccess(String leaf) {
        leaves.sim.faults().add(FaultRule.latency(leaf, "create", 150).times(1));
        String key = SimulatedLeaves.uniqueKey(leaf);

        assertThat(leaves.driver(leaf).create(key, "tag", null).naturalKey()).isEqualTo(key);
        assertHit(leaf, FaultType.LATENCY);
    }

    @ParameterizedTest
    @ValueSource(strings = {LeafSim.GITHOST, LeafSim.HOSTING, LeafSim.LICENSE})
    void a500BeforeTheCreateIsAmbiguousAndLookupProvesNothingWasMade(String leaf) {
        String key = ambiguousCreate(leaf, FaultRule.of(leaf, "create", FaultType.ERROR_BEFORE));
        assertThat(leaves.inventory(leaf).createsOf(key)).isZero();
        assertThat(leaves.driver(leaf).find(key)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {LeafSim.GITHOST, LeafSim.HOSTING, LeafSim.LICENSE})
    void a500AfterTheCreateIsAmbiguousAndLookupFindsOurs(String leaf) {
        assertCreatedBehindAmbiguity(leaf, FaultRule.of(leaf, "create", FaultType.ERROR_AFTER));
    }

    @ParameterizedTest
    @ValueSource(strings = {LeafSim.GITHOST, LeafSim.HOSTING, LeafSim.LICENSE})
    void aHangPastTheRequestTimeoutIsAmbiguous(String leaf) {
        assertCreatedBehindAmbiguity(leaf, FaultRule.of(leaf, "create", FaultType.HANG_AFTER).withHangMs(2_000));
    }

    @ParameterizedTest
    @ValueSource(strings = {LeafSim.GITHOST, LeafSim.HOSTING, LeafSim.LICENSE})
    void aConnectionResetAfterTheCreateIsAmbiguous(String leaf) {
        assertCreatedBehindAmbiguity(leaf, FaultRule.of(leaf, "create", FaultType.RESET_AFTER));
    }

    @ParameterizedTest
    @ValueSource(strings = {LeafSim.GITHOST, LeafSim.HOSTING, LeafSim.LICENSE})
    void a2xxWithATruncatedOrFieldlessBodyIsAmbiguousNeverASilentSuccess(String leaf) {
        assertCreatedBehindAmbiguity(leaf, FaultRule.of(leaf, "create", FaultType.MALFORMED_AFTER));
        assertCreatedBehindAmbiguity(leaf, FaultRule.of(leaf, "create", FaultType.MALFORMED_AFTER));
        assertThat(leaves.sim.faults().hits(leaf, "create", FaultType.MALFORMED_AFTER))
                .as("both malformed variants ran").isGreaterThanOrEqualTo(2);
    }

    @ParameterizedTest
    @ValueSource(strings = {LeafSim.GITHOST, LeafSim.HOSTING, LeafSim.LICENSE})
    void a429IsATransientRejectionCarryingRetryAfter(String leaf) {
        leaves.sim.faults().add(FaultRule.of(leaf, "create", FaultType.THROTTLE).withRetryAfterSeconds(7).times(1));
        String key = SimulatedLeaves.uniqueKey(leaf);

        assertThatThrownBy(() -> leaves.driver(leaf).create(key, "tag", null))
                .isInstanceOfSatisfying(LeafRejected.class, rejected -> {
                    assertThat(rejected.isTransient()).isTrue();
                    assertThat(rejected.status()).isEqualTo(429);
                    assertThat(rejected.retryAfter()).contains(Duration.ofSeconds(7));
                });
        assertHit(leaf, FaultType.THROTTLE);
        assertThat(leaves.inventory(leaf).createsOf(key)).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {LeafSim.GITHOST, LeafSim.HOSTING, LeafSim.LICENSE})
    void aWrongTokenIsAPermanentRejection(String leaf) {
        LeafDriver wrong = switch (leaf) {
            case LeafSim.GITHOST -> new GitHostDriver(new GitHostConfig(leaves.http(leaf, "nope"), "acme", true));
            case LeafSim.HOSTING -> new HostingDriver(HostingConfig.of(leaves.http(leaf, "nope"), "42"));
            default -> new LicenseDriver(new LicenseConfig(leaves.http(leaf, "nope")));
        };
        assertThatThrownBy(() -> wrong.create(SimulatedLeaves.uniqueKey(leaf), "tag", null))
                .isInstanceOfSatisfying(LeafRejected.class, rejected -> {
                    assertThat(rejected.status()).isEqualTo(401);
                    assertThat(rejected.isTransient()).isFalse();
                });
        assertThatThrownBy(wrong::list).isInstanceOfSatisfying(LeafRejected.class,
                rejected -> assertThat(rejected.isTransient()).isFalse());
    }

    @Test
    void aRefusedConnectionMeansNothingWasSent() {
        int closedPort = leaves.sim.port();
        try (SimulatedLeaves other = new SimulatedLeaves()) {
            closedPort = other.sim.port();
        }
        LicenseDriver unreachable = new LicenseDriver(new LicenseConfig(HttpLeafConfig.of(
                "http://127.0.0.1:" + closedPort + "/license", ApiToken.of(SimulatedLeaves.LICENSE_TOKEN))));

        assertThatThrownBy(() -> unreachable.create("refused.example.com", "tag", null))
                .isInstanceOfSatisfying(LeafRejected.class, rejected -> {
                    assertThat(rejected.isTransient()).isTrue();
                    assertThat(rejected.status()).isZero();
                });
    }

    private static void assertCreatedBehindAmbiguity(String leaf, FaultRule fault) {
        String key = ambiguousCreate(leaf, fault);
        assertThat(leaves.inventory(leaf).createsOf(key)).isEqualTo(1);
        assertThat(leaves.driver(leaf).find(key)).hasValueSatisfying(found -> assertThat(found.tag())
                .isEqualTo("ours-" + key));
    }

    private static String ambiguousCreate(String leaf, FaultRule fault) {
        leaves.sim.faults().add(fault.times(1));
        String key = SimulatedLeaves.uniqueKey(leaf);
        long before = leaves.sim.faults().hits(leaf, "create", fault.type());

        LeafDriver driver = fault.type() == FaultType.HANG_AFTER ? leaves.impatient(leaf) : leaves.driver(leaf);
        assertThatThrownBy(() -> driver.create(key, "ours-" + key, null))
                .isInstanceOf(AmbiguousOutcome.class)
                .satisfies(e -> assertThat(((AmbiguousOutcome) e).leaf()).isEqualTo(leaf));
        assertThat(leaves.sim.faults().hits(leaf, "create", fault.type())).isEqualTo(before + 1);
        return key;
    }

    private static void assertHit(String leaf, FaultType type) {
        assertThat(leaves.sim.faults().hits(leaf, "create", type)).as(leaf + " " + type).isPositive();
    }
}
