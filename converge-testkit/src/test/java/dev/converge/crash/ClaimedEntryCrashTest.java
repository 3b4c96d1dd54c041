package dev.converge.crash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.flow.Flow;
import dev.converge.flow.FlowState;
import dev.converge.flow.FlowView;
import dev.converge.flow.Harness;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import dev.converge.testkit.crash.CrashInjector;
import dev.converge.testkit.leaf.CountingLeaf;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A delivery dies while its create is out at the leaf (after the leaf answered, before the ledger
 * heard): the entry it leaves behind is as uncertain as one marked so. A type that cannot be looked
 * up must not be created again; one that can is adopted.
 */
class ClaimedEntryCrashTest {
    record Make(String key) {
    }

    static final JobType<Make> MAKE = JobType.of("claimed-crash.make", Make.class)
            .withRetry(RetryPolicy.attempts(10).backoff(Duration.ofMillis(20)).cappedAt(Duration.ofMillis(100)));

    static FlowView runCrashingOnce(Harness h, CountingLeaf leaf, CrashPoint at) {
        Converge[] self = new Converge[1];
        self[0] = h.engine(b -> b.queue("default", 2).leases(l -> l.duration(Duration.ofMillis(600)).heartbeat(Duration.ofMillis(200))
                        .rescue(Duration.ofMillis(100))).crashPlan(new CrashInjector(at, 1)).resource(leaf)
                .handle(MAKE, (p, ctx) -> ctx.ledger().ensure(leaf, p.key(), Map.of())));
        Converge engine = self[0];
        long flow = engine.flows().start(Flow.of("make", "site-1").then(Job.of(MAKE, new Make("k-1")))).flowId();
        await().atMost(Duration.ofSeconds(20)).until(() -> engine.flows().get(flow).orElseThrow().state().isTerminal());
        return engine.flows().get(flow).orElseThrow();
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void anUnsafeCreateWhoseOwnerDiedMidCallIsNotRepeated(String kind) {
        CountingLeaf leaf = CountingLeaf.unsafe("claimed-crash.license");
        try (Harness h = new Harness(kind)) {
            FlowView end = runCrashingOnce(h, leaf, CrashPoint.AFTER_LEAF_ANSWER);
            assertThat(leaf.createsOf("k-1")).as("creates at the leaf").isEqualTo(1);
            assertThat(end.state()).isEqualTo(FlowState.NEEDS_ATTENTION);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void anUnsafeCreateWhoseOwnerDiedBeforeCallingIsMadeOnce(String kind) {
        CountingLeaf leaf = CountingLeaf.unsafe("claimed-crash.license");
        try (Harness h = new Harness(kind)) {
            FlowView end = runCrashingOnce(h, leaf, CrashPoint.AFTER_CLAIM);
            assertThat(end.state()).as("nothing went out: no reason to ask a person").isEqualTo(FlowState.SUCCEEDED);
            assertThat(leaf.createsOf("k-1")).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aCreateWhoseOwnerDiedMidCallIsAdoptedWhenTheTypeCanLookItUp(String kind) {
        CountingLeaf leaf = CountingLeaf.uniqueByKey("claimed-crash.repo");
        try (Harness h = new Harness(kind)) {
            FlowView end = runCrashingOnce(h, leaf, CrashPoint.AFTER_LEAF_ANSWER);
            assertThat(end.state()).isEqualTo(FlowState.SUCCEEDED);
            assertThat(leaf.createsOf("k-1")).isEqualTo(1);
            assertThat(leaf.holdings()).containsExactly(Map.entry("k-1", 1));
        }
    }
}
