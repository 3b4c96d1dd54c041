package dev.converge.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.batch.Batch;
import dev.converge.batch.internal.JobSpec;
import dev.converge.chain.Chain;
import dev.converge.flow.Harness;
import dev.converge.ledger.CreateRequest;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.LedgerEntry;
import dev.converge.ledger.RepetitionSafety;
import dev.converge.ledger.ResourceType;
import dev.converge.queue.Job;
import dev.converge.queue.JobState;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One JSON codec everywhere: an {@code Instant} with nanoseconds, in a resource's leaf data, in a
 * chain link's payload, in a batch callback's payload and in a stored job spec, comes back unchanged.
 */
class OneCodecTest {
    record At(String name, Instant at) {
    }

    static final Instant AT = Instant.parse("2026-12-02T01:02:03.123456789Z");
    static final JobType<At> STEP = JobType.of("codec-test.step", At.class).withRetry(RetryPolicy.never());
    static final JobType<At> MAKE = JobType.of("codec-test.make", At.class).withRetry(RetryPolicy.never());

    final List<At> seen = new CopyOnWriteArrayList<>();

    /** A leaf that answers a create with data holding an Instant. */
    static final ResourceType STAMPED = ResourceType.named("codec-test.stamped")
            .createdBy(RepetitionSafety.IDEMPOTENT_BY_KEY,
                    req -> new LeafResource("leaf-" + req.naturalKey(), req.naturalKey(), req.tag(),
                            Map.of("createdAt", AT, "nested", Map.of("at", AT))))
            .deletedBy(r -> { })
            .build();

    Converge engine(Harness h) {
        Converge[] self = new Converge[1];
        self[0] = h.engine(b -> b.queue("default", 2).resource(STAMPED)
                .handle(STEP, (p, ctx) -> seen.add(p))
                .handle(MAKE, (p, ctx) -> ctx.ledger().ensure(STAMPED, p.name(), "s-" + p.name(), Map.of())));
        return self[0];
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void anInstantInALedgerEntrysDataRoundTrips(String kind) {
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h);
            long id = engine.enqueue(Job.of(MAKE, new At("site-1", AT))).jobId();
            await().atMost(Duration.ofSeconds(20)).until(() -> engine.job(id).orElseThrow().state().isTerminal());
            assertThat(engine.job(id).orElseThrow().state()).as(engine.job(id).orElseThrow().lastError())
                    .isEqualTo(JobState.SUCCEEDED);
            LedgerEntry e = engine.ledger().entry(STAMPED.kind(), "site-1").orElseThrow();
            assertThat(e.data().get("createdAt")).isEqualTo(AT.toString());
            assertThat(Instant.parse((String) e.data().get("createdAt"))).isEqualTo(AT);
            assertThat(e.data().get("nested")).isEqualTo(Map.of("at", AT.toString()));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void anInstantInAChainLinkAndItsCallbacksRoundTrips(String kind) {
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h);
            engine.chains().start(Chain.named("stamped")
                    .then(Job.of(STEP, new At("link", AT)))
                    .then(Batch.named("b").add(Job.of(STEP, new At("batched", AT))))
                    .onEnd(Job.of(STEP, new At("finally", AT))));
            await().atMost(Duration.ofSeconds(20)).until(() -> seen.size() == 3);
            assertThat(seen).extracting(At::name).containsExactly("link", "batched", "finally");
            assertThat(seen).extracting(At::at).containsOnly(AT);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2"})
    void aStoredJobSpecKeepsItsPayloadExactly(String kind) {
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h);
            JobSpec spec = JobSpec.of(dev.converge.EngineInternals.encode(engine, Job.of(STEP, new At("spec", AT))));
            JobSpec back = JobSpec.fromJson(spec.toJson());
            assertThat(back).isEqualTo(spec);
            assertThat(dev.converge.EngineInternals.runtime(engine).codec().read(back.payload(), At.class, STEP.name()).at()).isEqualTo(AT);
            assertThat(back.payload()).contains(AT.toString());
        }
    }
}
