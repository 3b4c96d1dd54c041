package dev.converge.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.flow.Flow;
import dev.converge.flow.FlowState;
import dev.converge.flow.Harness;
import dev.converge.ledger.LeafCall;
import dev.converge.ledger.RepetitionSafety;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.queue.NonRetryableException;
import dev.converge.testkit.leaf.CountingLeaf;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One flow started inside a request yields one connected trace: the flow's start, every step's
 * delivery (also the steps the completer starts after the first), each ensure() and leaf call
 * under its step, and the compensation after a step fails.
 */
class FlowTracingTest {
    record Make(String key) {
    }

    static final JobType<Make> REPO = JobType.of("ft.repo", Make.class);
    static final JobType<String> NOTIFY = JobType.of("ft.notify", String.class);
    static final JobType<String> BREAK = JobType.of("ft.break", String.class);

    static final AttributeKey<String> SAFETY = AttributeKey.stringKey("converge.leaf.safety");
    static final AttributeKey<String> LEAF_OUTCOME = AttributeKey.stringKey("converge.leaf.outcome");

    static SpanData named(List<SpanData> spans, String name) {
        return spans.stream().filter(s -> s.getName().equals(name)).findFirst().orElseThrow(
                () -> new AssertionError("no span " + name + " in " + spans.stream().map(SpanData::getName).toList()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aFlowWithEnsureStepsThatFailsAndCompensatesIsOneConnectedTrace(String kind) {
        InMemorySpanExporter exporter = InMemorySpanExporter.create();
        SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
        OpenTelemetrySdk otel = OpenTelemetrySdk.builder().setTracerProvider(provider).build();
        CountingLeaf repos = CountingLeaf.uniqueByKey("ft.repo");
        try (Harness h = new Harness(kind)) {
            Converge[] self = new Converge[1];
            self[0] = h.engine(b -> b.telemetry(t -> t.tracing(otel)).queue("default", 2).resource(repos)
                    .handle(REPO, (m, ctx) -> ctx.ledger().ensure(repos, m.key(), null, Map.of()))
                    .handle(NOTIFY, (p, ctx) -> ctx.ledger().call(LeafCall.of("ft.notify",
                            RepetitionSafety.NATURALLY_IDEMPOTENT, key -> "sent")))
                    .handle(BREAK, (p, ctx) -> {
                        throw new NonRetryableException("step fails on purpose");
                    }));
            Converge engine = self[0];
            Span request = otel.getTracer("app").spanBuilder("POST /v1/sites").setSpanKind(SpanKind.SERVER).startSpan();
            long flowId;
            try (Scope ignored = request.makeCurrent()) {
                flowId = engine.flows().start(Flow.of("ft.provision", "s1")
                        .then(Job.of(REPO, new Make("s1")))
                        .then(Job.of(NOTIFY, "s1"))
                        .then(Job.of(BREAK, "s1"))).flowId();
            } finally {
                request.end();
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> engine.flows().get(flowId).orElseThrow().state() == FlowState.FAILED);
            await().atMost(Duration.ofSeconds(10)).until(() -> exporter.getFinishedSpanItems().stream()
                    .anyMatch(s -> s.getName().equals("run converge.flow.compensate")));
            List<SpanData> spans = exporter.getFinishedSpanItems();

            SpanData req = named(spans, "POST /v1/sites");
            assertThat(spans.stream().map(SpanData::getTraceId).collect(Collectors.toSet()))
                    .as("one trace: " + spans.stream().map(SpanData::getName).toList()).containsExactly(req.getTraceId());
            Set<String> ids = spans.stream().map(SpanData::getSpanId).collect(Collectors.toSet());
            assertThat(spans).as("every span but the request's has its parent in the trace")
                    .filteredOn(s -> s != req).allSatisfy(s -> assertThat(ids).contains(s.getParentSpanId()));

            SpanData start = named(spans, "start flow ft.provision");
            SpanData step1 = named(spans, "run ft.repo");
            SpanData step2 = named(spans, "run ft.notify");
            SpanData step3 = named(spans, "run ft.break");
            SpanData ensure = named(spans, "ensure ft.repo");
            SpanData find = named(spans, "leaf find ft.repo");
            SpanData create = named(spans, "leaf create ft.repo");
            SpanData notify = named(spans, "leaf call ft.notify");
            SpanData compensate = named(spans, "run converge.flow.compensate");
            SpanData delete = named(spans, "leaf delete ft.repo");

            assertThat(start.getParentSpanId()).isEqualTo(req.getSpanId());
            assertThat(List.of(step1, step2, step3)).as("every step continues the flow's start")
                    .allSatisfy(s -> assertThat(s.getParentSpanId()).isEqualTo(start.getSpanId()));
            assertThat(step2.getAttributes().get(AttributeKey.longKey("converge.flow.step"))).isEqualTo(1L);
            assertThat(step2.getAttributes().get(AttributeKey.longKey("converge.flow.id"))).isEqualTo(flowId);
            assertThat(ensure.getParentSpanId()).isEqualTo(step1.getSpanId());
            assertThat(ensure.getAttributes().get(AttributeKey.stringKey("converge.ledger.outcome"))).isEqualTo("created");
            assertThat(List.of(find, create)).allSatisfy(s -> assertThat(s.getParentSpanId()).isEqualTo(ensure.getSpanId()));
            assertThat(find.getAttributes().get(SAFETY)).isEqualTo("read_only");
            assertThat(find.getAttributes().get(LEAF_OUTCOME)).isEqualTo("absent");
            assertThat(create.getKind()).isEqualTo(SpanKind.CLIENT);
            assertThat(create.getAttributes().get(SAFETY)).isEqualTo("idempotent_by_constraint");
            assertThat(create.getAttributes().get(LEAF_OUTCOME)).isEqualTo("ok");
            assertThat(notify.getParentSpanId()).isEqualTo(step2.getSpanId());
            assertThat(notify.getAttributes().get(SAFETY)).isEqualTo("naturally_idempotent");
            assertThat(step3.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
            assertThat(compensate.getParentSpanId()).as("compensation continues the failed step's trace")
                    .isEqualTo(start.getSpanId());
            assertThat(delete.getParentSpanId()).as("the teardown runs inside the compensating job")
                    .isEqualTo(compensate.getSpanId());
            assertThat(delete.getAttributes().get(SAFETY)).isEqualTo("naturally_idempotent");
        } finally {
            provider.close();
        }
    }
}
