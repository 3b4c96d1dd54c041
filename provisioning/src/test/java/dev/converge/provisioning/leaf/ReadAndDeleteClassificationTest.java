package dev.converge.provisioning.leaf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.leafsim.LeafSim;
import dev.converge.leafsim.fault.FaultRule;
import dev.converge.leafsim.fault.FaultType;
import dev.converge.ledger.LeafRejected;
import dev.converge.ledger.LeafResource;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reads never create and a failed read is "not known yet" (a transient rejection), never "absent".
 * Deletes are idempotent: gone already is success; a failed delete is a transient rejection.
 */
class ReadAndDeleteClassificationTest {
    @RegisterExtension
    static final SimulatedLeaves leaves = new SimulatedLeaves();

    /** The route each driver's find uses: GitHub has a direct GET, the others are searched by listing. */
    static Stream<Arguments> readFaults() {
        return Stream.of(LeafSim.GITHOST, LeafSim.HOSTING, LeafSim.LICENSE).flatMap(leaf -> Stream.of(
                FaultType.ERROR_BEFORE, FaultType.ERROR_AFTER, FaultType.MALFORMED_AFTER, FaultType.RESET_AFTER,
                FaultType.HANG_AFTER, FaultType.THROTTLE).map(type -> Arguments.of(leaf, type)));
    }

    @ParameterizedTest
    @MethodSource("readFaults")
    void aFailedLookupIsATransientRejectionNeverAbsent(String leaf, FaultType type) {
        String key = SimulatedLeaves.uniqueKey(leaf);
        leaves.driver(leaf).create(key, "tag", null);
        String route = LeafSim.GITHOST.equals(leaf) ? "get" : "list";
        long hitsBefore = leaves.sim.faults().hits(leaf, route, type);
        // not limited to one call: java.net.http itself retries a GET once after a reset
        leaves.sim.faults().add(FaultRule.of(leaf, route, type).withHangMs(1_500));

        LeafDriver driver = type == FaultType.HANG_AFTER ? leaves.impatient(leaf) : leaves.driver(leaf);
        assertThatThrownBy(() -> driver.find(key)).isInstanceOfSatisfying(LeafRejected.class,
                rejected -> assertThat(rejected.isTransient()).isTrue());
        assertThat(leaves.sim.faults().hits(leaf, route, type)).isGreaterThan(hitsBefore);
        leaves.sim.faults().clear();
        assertThat(leaves.driver(leaf).find(key)).as("once the fault is gone, the lookup answers").isPresent();
        assertThat(leaves.inventory(leaf).createsOf(key)).as("reads never create").isEqualTo(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {LeafSim.GITHOST, LeafSim.HOSTING, LeafSim.LICENSE})
    void lookingUpAnAbsentKeyIsEmpty(String leaf) {
        assertThat(leaves.driver(leaf).find(SimulatedLeaves.uniqueKey(leaf))).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {LeafSim.GITHOST, LeafSim.HOSTING, LeafSim.LICENSE})
    void deletingTwiceSucceedsBothTimes(String leaf) {
        String key = SimulatedLeaves.uniqueKey(leaf);
        LeafResource created = leaves.driver(leaf).create(key, "tag", null);

        leaves.driver(leaf).delete(created.leafId());
        assertThatCode(() -> leaves.driver(leaf).delete(created.leafId())).doesNotThrowAnyException();
        assertThat(leaves.driver(leaf).find(key)).isEmpty();
        assertThat(leaves.inventory(leaf).currentOf(key)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {LeafSim.GITHOST, LeafSim.HOSTING, LeafSim.LICENSE})
    void aDeleteWhoseAnswerIsLostIsTransientAndTheRetrySucceeds(String leaf) {
        String key = SimulatedLeaves.uniqueKey(leaf);
        LeafResource created = leaves.driver(leaf).create(key, "tag", null);
        leaves.sim.faults().add(FaultRule.of(leaf, "delete", FaultType.RESET_AFTER).times(1));

        assertThatThrownBy(() -> leaves.driver(leaf).delete(created.leafId()))
                .isInstanceOfSatisfying(LeafRejected.class, rejected -> assertThat(rejected.isTransient()).isTrue());
        assertThat(leaves.inventory(leaf).currentOf(key)).as("the delete did happen").isEmpty();
        assertThatCode(() -> leaves.driver(leaf).delete(created.leafId())).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {LeafSim.GITHOST, LeafSim.HOSTING, LeafSim.LICENSE})
    void aThrottledOrFailingDeleteIsTransient(String leaf) {
        LeafResource created = leaves.driver(leaf).create(SimulatedLeaves.uniqueKey(leaf), "tag", null);
        leaves.sim.faults().add(FaultRule.of(leaf, "delete", FaultType.THROTTLE).withRetryAfterSeconds(3).times(1),
                FaultRule.of(leaf, "delete", FaultType.ERROR_BEFORE).times(1));

        assertThatThrownBy(() -> leaves.driver(leaf).delete(created.leafId()))
                .isInstanceOfSatisfying(LeafRejected.class, rejected -> {
                    assertThat(rejected.isTransient()).isTrue();
                    assertThat(rejected.retryAfter()).contains(Duration.ofSeconds(3));
                });
        assertThatThrownBy(() -> leaves.driver(leaf).delete(created.leafId()))
                .isInstanceOfSatisfying(LeafRejected.class, rejected -> assertThat(rejected.status()).isEqualTo(500));
        assertThat(leaves.inventory(leaf).currentOf(created.naturalKey())).hasSize(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {LeafSim.GITHOST, LeafSim.HOSTING, LeafSim.LICENSE})
    void listReturnsWhatTheLeafHoldsAndFailsTransiently(String leaf) {
        String key = SimulatedLeaves.uniqueKey(leaf);
        leaves.driver(leaf).create(key, "listed", null);

        assertThat(leaves.driver(leaf).list()).anySatisfy(r -> {
            assertThat(r.naturalKey()).isEqualTo(key);
            assertThat(r.tag()).isEqualTo("listed");
        });
        leaves.sim.faults().add(FaultRule.of(leaf, "list", FaultType.MALFORMED_AFTER).times(1));
        assertThatThrownBy(() -> leaves.driver(leaf).list()).isInstanceOfSatisfying(LeafRejected.class,
                rejected -> assertThat(rejected.isTransient()).isTrue());
    }
}
