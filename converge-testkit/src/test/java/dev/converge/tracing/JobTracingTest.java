package dev.converge.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.flow.Harness;
import dev.converge.queue.JobType;
import dev.converge.queue.NonRetryableException;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.MDC;

/** A request's trace continues through the jobs it enqueues, and theirs, with the SDK's in-memory exporter. */
class JobTracingTest {
    static final JobType<String> FIRST = JobType.of("t.first", String.class);
    static final JobType<String> SECOND = JobType.of("t.second", String.class);
    static final JobType<String> BROKEN = JobType.of("t.broken", String.class);

    static SpanData named(List<SpanData> spans, String name) {
        return spans.stream().filter(s -> s.getName().equals(name)).findFirst().orElseThrow(
                () -> new AssertionError("no span " + name + " in " + spans.stream().map(SpanData::getName).toList()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void oneRequestYieldsOneConnectedTrace(String kind) {
        InMemorySpanExporter exporter = InMemorySpanExporter.create();
        SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
        OpenTelemetrySdk otel = OpenTelemetrySdk.builder().setTracerProvider(provider).build();
        Tracer app = otel.getTracer("app");
        Map<String, String> mdcTraceIds = new ConcurrentHashMap<>();
        try (Harness h = new Harness(kind)) {
            Converge engine = h.engine(b -> b.telemetry(t -> t.tracing(otel)).queue("default", 2)
                    .handle(FIRST, (p, ctx) -> {
                        mdcTraceIds.put("first", String.valueOf(MDC.get("trace_id")));
                        Span leaf = app.spanBuilder("leaf call").startSpan();
                        leaf.end();
                        ctx.enqueue(dev.converge.queue.Job.of(SECOND, p + "-next"));
                    })
                    .handle(SECOND, (p, ctx) -> mdcTraceIds.put("second", String.valueOf(MDC.get("trace_id"))))
                    .handle(BROKEN, (p, ctx) -> {
                        throw new NonRetryableException("broken on purpose");
                    }));
            Span request = app.spanBuilder("POST /v1/sites").startSpan();
            try (Scope ignored = request.makeCurrent()) {
                engine.enqueue(FIRST, "site-1");
            } finally {
                request.end();
            }
            engine.enqueue(BROKEN, "x"); // enqueued with no trace around it

            await().atMost(Duration.ofSeconds(20)).until(() -> exporter.getFinishedSpanItems().size() >= 5);
            List<SpanData> spans = exporter.getFinishedSpanItems();
            SpanData req = named(spans, "POST /v1/sites");
            SpanData first = named(spans, "run t.first");
            SpanData leaf = named(spans, "leaf call");
            SpanData second = named(spans, "run t.second");
            SpanData broken = named(spans, "run t.broken");

            assertThat(List.of(first, leaf, second)).allSatisfy(s -> assertThat(s.getTraceId()).isEqualTo(req.getTraceId()));
            assertThat(first.getParentSpanId()).as("the job's span continues the request").isEqualTo(req.getSpanId());
            assertThat(leaf.getParentSpanId()).as("the handler's own spans nest under its job").isEqualTo(first.getSpanId());
            assertThat(second.getParentSpanId()).as("a job enqueued by a job continues its trace").isEqualTo(first.getSpanId());
            assertThat(first.getAttributes().get(AttributeKey.stringKey("converge.job.type"))).isEqualTo("t.first");
            assertThat(first.getAttributes().get(AttributeKey.stringKey("converge.job.queue"))).isEqualTo("default");
            assertThat(first.getAttributes().get(AttributeKey.longKey("converge.job.attempt"))).isEqualTo(1L);
            assertThat(first.getAttributes().get(AttributeKey.longKey("converge.job.id"))).isNotNull();
            assertThat(mdcTraceIds).containsEntry("first", req.getTraceId()).containsEntry("second", req.getTraceId());

            assertThat(broken.getTraceId()).as("a job enqueued outside any trace starts its own").isNotEqualTo(req.getTraceId());
            assertThat(broken.getParentSpanContext().isValid()).isFalse();
            assertThat(broken.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
            assertThat(broken.getEvents()).anySatisfy(e -> assertThat(e.getName()).isEqualTo("exception"));
        } finally {
            provider.close();
        }
    }
}
