package dev.converge.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.flow.Flow;
import dev.converge.flow.FlowState;
import dev.converge.fixture.RoundTrips;
import dev.converge.flow.Harness;
import dev.converge.queue.Job;
import dev.converge.queue.JobState;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import dev.converge.store.Store;
import dev.converge.testkit.leaf.CountingLeaf;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The round trips of a guarded step's common path: a fresh key, nothing in the ledger yet. Every
 * statement the step's thread sends and every commit it asks for during {@code ensure()} is counted
 * through a wrapper of the engine's pool. On PostgreSQL the claim is one statement (the insert, the
 * flow's shared lock and the compensation together), then the create's cancellation probe and the
 * confirm: three in a flow. Outside a flow there is neither compensation nor probe: two.
 */
class ClaimRoundTripTest {
    record Make(String key, boolean inFlow) {
    }

    static final JobType<Make> MAKE = JobType.of("claim-round-trips.make", Make.class).withRetry(RetryPolicy.never());

    final CountingLeaf repos = CountingLeaf.uniqueByKey("claim-round-trips.repo");

    @ParameterizedTest(name = "{0}: {2} in a flow, {3} outside")
    @CsvSource({"postgres, 'the claim (one statement, which also answers the cancellation probe), the confirm', 2, 2",
        "h2, 'the claim (insert, flow lock, compensation, commit), the cancellation probe, the confirm', 6, 2"})
    void aFreshGuardedStepCostsTheFewestRoundTrips(String kind, String what, int inFlow, int outside) {
        try (Harness h = new Harness(kind)) {
            Store counted = Store.of(RoundTrips.counting(h.store().dataSource()), h.store().clock());
            Map<String, List<String>> sent = new java.util.concurrent.ConcurrentHashMap<>();
            Converge[] self = new Converge[1];
            self[0] = h.engine(counted, b -> b.queue("default", 2).resource(repos)
                    .handle(MAKE, (p, ctx) -> sent.put(p.key(), ensureRecorded(ctx, p.key()))));
            Converge engine = self[0];
            long flowId = engine.flows().start(Flow.of("claim-round-trips", "f1")
                    .then(Job.of(MAKE, new Make("in-flow", true)))).flowId();
            long jobId = engine.enqueue(Job.of(MAKE, new Make("outside", false))).jobId();
            await().atMost(Duration.ofSeconds(20)).until(() -> engine.flows().get(flowId).orElseThrow().state()
                    == FlowState.SUCCEEDED && engine.job(jobId).orElseThrow().state() == JobState.SUCCEEDED);

            LedgerEntry claimed = engine.ledger().entry(repos.kind(), "in-flow").orElseThrow();
            assertThat(claimed.state()).isEqualTo(LedgerState.CONFIRMED);
            assertThat(engine.flows().compensations(flowId)).as("the claim registered the teardown of its entry")
                    .singleElement().satisfies(c -> {
                        assertThat(c.kind()).isEqualTo("converge.ledger.teardown-entry");
                        assertThat(c.payload()).isEqualTo("{\"entryId\":" + claimed.id() + "}");
                    });
            assertThat(sent.get("in-flow")).as("round trips of a fresh guarded step in a flow (%s): %s", what,
                    sent.get("in-flow")).hasSize(inFlow);
            assertThat(sent.get("outside")).as("round trips of a fresh guarded step outside a flow: %s",
                    sent.get("outside")).hasSize(outside);
        }
    }

    record Again(String key, String label) {
    }

    static final JobType<Again> AGAIN = JobType.of("claim-round-trips.again", Again.class).withRetry(RetryPolicy.never());

    /**
     * A step whose key the ledger holds already (a retried or repeated step): on PostgreSQL the claiming
     * statement returns the entry that holds the key, so the step does not read it again after; a
     * confirmed entry for the same subject is the answer with no further statement.
     */
    @ParameterizedTest(name = "{0}: {1} round trips for a key already confirmed")
    @CsvSource({"postgres, 1", "h2, 3"})
    void aStepWhoseKeyIsConfirmedAlreadyReadsItWithTheClaim(String kind, int again) {
        try (Harness h = new Harness(kind)) {
            Store counted = Store.of(RoundTrips.counting(h.store().dataSource()), h.store().clock());
            Map<String, List<String>> sent = new java.util.concurrent.ConcurrentHashMap<>();
            Converge engine = h.engine(counted, b -> b.queue("default", 2).resource(repos)
                    .handle(AGAIN, (p, ctx) -> sent.put(p.label(), ensureRecorded(ctx, p.key()))));
            long flowId = engine.flows().start(Flow.of("claim-round-trips", "f2")
                    .then(Job.of(AGAIN, new Again("twice", "first")))
                    .then(Job.of(AGAIN, new Again("twice", "second")))).flowId();
            await().atMost(Duration.ofSeconds(20)).until(() -> engine.flows().get(flowId).orElseThrow().state()
                    == FlowState.SUCCEEDED);

            assertThat(repos.createsOf("twice")).as("one create for the two steps").isEqualTo(1);
            assertThat(sent.get("second")).as("round trips of the step that found its key confirmed: %s",
                    sent.get("second")).hasSize(again);
        }
    }

    /**
     * Ensures the key's repository and returns what this thread sent meanwhile. The subject is named, so that
     * the flow's subject (read once per flow) is not counted.
     */
    private List<String> ensureRecorded(dev.converge.handler.JobContext ctx, String key) {
        return RoundTrips.sentBy(() -> ctx.ledger().ensure(repos, key, "subject-" + key, Map.of()));
    }
}
