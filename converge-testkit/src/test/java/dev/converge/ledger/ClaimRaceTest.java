package dev.converge.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.flow.Compensation;
import dev.converge.flow.Flow;
import dev.converge.flow.FlowState;
import dev.converge.flow.Harness;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import dev.converge.testkit.leaf.CountingLeaf;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Steps of several flows claim the same fresh key at the same moment (same subject). One claim wins and
 * registers the one compensation, in its own flow; the others find the key taken, wait for the winner, and
 * return its entry without registering anything: a claim that lost leaves no compensation behind.
 */
class ClaimRaceTest {
    record Make(String key) {
    }

    static final int FLOWS = 6;
    static final JobType<Make> MAKE = JobType.of("claim-race.make", Make.class)
            .withRetry(RetryPolicy.attempts(3).backoff(Duration.ofMillis(20)).cappedAt(Duration.ofMillis(50)));

    final CountingLeaf repos = CountingLeaf.uniqueByKey("claim-race.repo");

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void stepsOfManyFlowsClaimingOneFreshKeyAtOnceCreateItOnceWithOneCompensation(String kind) {
        CountDownLatch ready = new CountDownLatch(FLOWS);
        try (Harness h = new Harness(kind)) {
            Converge[] self = new Converge[1];
            self[0] = h.engine(b -> b.queue("default", FLOWS).resource(repos)
                    .handle(MAKE, (p, ctx) -> {
                        ready.countDown();
                        ready.await(5, TimeUnit.SECONDS); // all claim together (a retry passes straight through)
                        ctx.ledger().ensure(repos, p.key(), "one-subject", Map.of());
                    }));
            Converge engine = self[0];
            List<Long> flows = new ArrayList<>();
            for (int i = 0; i < FLOWS; i++) {
                flows.add(engine.flows().start(Flow.of("claim-race", "flow-" + i)
                        .then(Job.of(MAKE, new Make("shared-1")))).flowId());
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> flows.stream()
                    .allMatch(id -> engine.flows().get(id).orElseThrow().state().isTerminal()));

            assertThat(flows).allSatisfy(id -> assertThat(engine.flows().get(id).orElseThrow().state())
                    .isEqualTo(FlowState.SUCCEEDED));
            assertThat(repos.totalCreates()).as("creates of one key claimed by %s flows at once", FLOWS).isEqualTo(1);
            LedgerEntry e = engine.ledger().entry(repos.kind(), "shared-1").orElseThrow();
            assertThat(e.state()).isEqualTo(LedgerState.CONFIRMED);
            List<Compensation> all = new ArrayList<>();
            flows.forEach(id -> all.addAll(engine.flows().compensations(id)));
            assertThat(all).as("compensations of all the flows").singleElement().satisfies(c -> {
                assertThat(c.flowId()).as("the winner's flow").isEqualTo(e.flowId());
                assertThat(c.payload()).isEqualTo("{\"entryId\":" + e.id() + "}");
            });
        }
    }
}
