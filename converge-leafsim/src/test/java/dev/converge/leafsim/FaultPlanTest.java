package dev.converge.leafsim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.leafsim.fault.FaultDecision;
import dev.converge.leafsim.fault.FaultPlan;
import dev.converge.leafsim.fault.FaultRule;
import dev.converge.leafsim.fault.FaultType;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FaultPlanTest {
    @Test
    void theSameSeedAndCallsMeetTheSameFaults() {
        assertThat(decisions(11)).isEqualTo(decisions(11));
        assertThat(decisions(11)).isNotEqualTo(decisions(12));
        assertThat(decisions(11).stream().filter(t -> t != null).count()).isBetween(30L, 70L);
    }

    @Test
    void aRuleWithTimesIsSpentAfterThatManyHits() {
        FaultPlan plan = new FaultPlan(1);
        plan.add(FaultRule.of("license", "create", FaultType.RESET_AFTER).times(2));

        assertThat(plan.decide("license", "create").outcome()).isEqualTo(FaultType.RESET_AFTER);
        assertThat(plan.rules()).singleElement().extracting(FaultRule::times).isEqualTo(1);
        assertThat(plan.decide("license", "create").outcome()).isEqualTo(FaultType.RESET_AFTER);
        assertThat(plan.decide("license", "create")).isEqualTo(FaultDecision.NONE);
        assertThat(plan.rules()).isEmpty();
        assertThat(plan.hits("license", "create", FaultType.RESET_AFTER)).isEqualTo(2);
    }

    @Test
    void onlyTheFirstMatchingOutcomeFiresAndCountsButLatencyAdds() {
        FaultPlan plan = new FaultPlan(1);
        plan.add(FaultRule.latency("hosting", "*", 5), FaultRule.of("hosting", "create", FaultType.THROTTLE),
                FaultRule.latency("hosting", "create", 7), FaultRule.of("hosting", "create", FaultType.ERROR_BEFORE));

        FaultDecision decision = plan.decide("hosting", "create");
        assertThat(decision.latencyMs()).isEqualTo(12);
        assertThat(decision.outcome()).isEqualTo(FaultType.THROTTLE);
        assertThat(plan.hits(FaultType.ERROR_BEFORE)).isZero();
        assertThat(plan.decide("githost", "create")).isEqualTo(FaultDecision.NONE);
    }

    @Test
    void rejectsNonsenseRules() {
        assertThatThrownBy(() -> FaultRule.of("license", "create", FaultType.THROTTLE).withProbability(1.5))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FaultRule.of("license", "create", FaultType.THROTTLE).times(0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static List<FaultType> decisions(long seed) {
        FaultPlan plan = new FaultPlan(seed);
        plan.add(FaultRule.of("license", "create", FaultType.ERROR_AFTER).withProbability(0.5));
        List<FaultType> seen = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            seen.add(plan.decide("license", "create").outcome());
        }
        return seen;
    }
}
