package dev.converge.crash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.flow.Flow;
import dev.converge.flow.FlowState;
import dev.converge.flow.FlowView;
import dev.converge.flow.Harness;
import dev.converge.ledger.CreateRequest;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.LedgerEntry;
import dev.converge.ledger.LedgerState;
import dev.converge.ledger.RepetitionSafety;
import dev.converge.ledger.ResourceType;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import dev.converge.testkit.crash.CrashInjector;
import dev.converge.testkit.leaf.CountingLeaf;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A type idempotent by a leaf idempotency key and without a lookup: its owner dies after the leaf
 * answered, before the ledger heard, and no redelivery resends the key (the step has no attempt
 * left). Teardown and the reaper learn the resource by resending the create with the entry's own
 * key and the parameters kept at the claim: the leaf answers with the resource it already made,
 * which is then deleted (teardown) or confirmed (resolve). Never a second resource, never a person.
 */
class KeyReplayTest {
    record Make(String key, String subject) {
    }

    static final String KIND = "key-replay.license";
    static final Map<String, Object> PARAMS = Map.of("plan", "gold", "seats", 3);

    /** One attempt: the crash leaves the entry to teardown or to the reaper, never to a redelivery. */
    static final JobType<Make> MAKE = JobType.of("key-replay.make", Make.class).withRetry(RetryPolicy.never());

    /** A keyed leaf without lookup that remembers what every create was sent. */
    static final class KeyedLeaf implements ResourceType {
        final CountingLeaf leaf = CountingLeaf.of(KIND, RepetitionSafety.IDEMPOTENT_BY_KEY, false, false);
        final List<CreateRequest> sent = new CopyOnWriteArrayList<>();

        @Override
        public String kind() {
            return KIND;
        }

        @Override
        public RepetitionSafety createSafety() {
            return RepetitionSafety.IDEMPOTENT_BY_KEY;
        }

        @Override
        public LeafResource create(CreateRequest request) {
            sent.add(request);
            return leaf.create(request);
        }

        @Override
        public void delete(LeafResource resource) {
            leaf.delete(resource);
        }
    }

    static Converge engine(Harness h, KeyedLeaf type) {
        Converge[] self = new Converge[1];
        self[0] = h.engine(b -> b.queue("default", 2).leases(l -> l.duration(Duration.ofMillis(600)).heartbeat(Duration.ofMillis(200))
                        .rescue(Duration.ofMillis(100))).ledger(g -> g.reaper(Duration.ofMillis(200), Duration.ofMillis(300)))
                .crashPlan(new CrashInjector(CrashPoint.AFTER_LEAF_ANSWER, 1)).resource(type)
                .handle(MAKE, (p, ctx) -> ctx.ledger().ensure(type, p.key(), p.subject(), PARAMS)));
        return self[0];
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void teardownResendsTheKeyAndDeletesWhatTheDeadOwnerCreated(String kind) {
        KeyedLeaf type = new KeyedLeaf();
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h, type);
            long flow = engine.flows().start(Flow.of("make", "site-1").then(Job.of(MAKE, new Make("k-1", null))))
                    .flowId();
            await().atMost(Duration.ofSeconds(15)).until(() -> engine.flows().get(flow).orElseThrow().state()
                    .isTerminal());
            FlowView end = engine.flows().get(flow).orElseThrow();

            assertThat(type.leaf.createsOf("k-1")).as("resources ever created for k-1").isEqualTo(1);
            assertThat(end.state()).as("attention: " + end.attention()).isEqualTo(FlowState.FAILED);
            assertThat(type.leaf.holdings()).as("left at the leaf").isEmpty();
            assertThat(type.leaf.deletes()).isEqualTo(1);
            LedgerEntry e = engine.ledger().entry(KIND, "k-1").orElseThrow();
            assertThat(e.state()).isEqualTo(LedgerState.DELETED);
            assertThat(e.leafId()).as("the resource the replay learned is recorded").isEqualTo(KIND + "-1");
            assertThat(type.sent).as("the replay resent the same key and parameters").hasSize(2)
                    .allSatisfy(r -> {
                        assertThat(r.idempotencyKey()).isEqualTo(type.sent.get(0).idempotencyKey());
                        assertThat(r.params()).isEqualTo(PARAMS);
                    });
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void theReaperResendsTheKeyAndConfirmsWhatTheDeadOwnerCreated(String kind) {
        KeyedLeaf type = new KeyedLeaf();
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h, type);
            engine.enqueue(Job.of(MAKE, new Make("k-2", "customer-2")));
            await().atMost(Duration.ofSeconds(15)).until(() -> engine.ledger().entry(KIND, "k-2")
                    .map(x -> !x.state().unresolved()).orElse(false));

            LedgerEntry e = engine.ledger().entry(KIND, "k-2").orElseThrow();
            assertThat(e.state()).isEqualTo(LedgerState.CONFIRMED);
            assertThat(type.leaf.createsOf("k-2")).as("resources ever created for k-2").isEqualTo(1);
            assertThat(type.leaf.holdings()).containsExactly(Map.entry("k-2", 1));
            assertThat(e.leafId()).isEqualTo(type.leaf.list().get(0).leafId());
            assertThat(type.sent).hasSize(2).allSatisfy(r -> {
                assertThat(r.idempotencyKey()).isEqualTo(type.sent.get(0).idempotencyKey());
                assertThat(r.params()).isEqualTo(PARAMS);
            });
        }
    }
}
