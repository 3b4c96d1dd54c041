package dev.converge.tracing.internal;

import dev.converge.queue.internal.JobStore;
import dev.converge.queue.internal.LeasedJob;
import dev.converge.queue.internal.EngineObserver;
import dev.converge.queue.internal.EngineRuntime;
import dev.converge.store.Store;
import io.opentelemetry.api.OpenTelemetry;

import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.MDC;

/**
 * Traces the engine's deliveries with the OpenTelemetry API (a no-op unless the application
 * configured an SDK). Enqueueing records the enqueuing thread's trace context in the job's row
 * ({@code cv_job.trace_parent}, W3C traceparent); each delivery runs its handler inside a
 * {@code CONSUMER} span named {@code run <job type>}, child of that context, with the job's
 * attributes, and current on the worker thread so the handler's own spans nest under it. The
 * trace and span ids are in the MDC ({@code trace_id}, {@code span_id}) while the handler runs.
 *
 * <p>Inside a delivery it spans what the handler does through the engine: each {@code ensure()}
 * ({@code ensure <kind>}), each call to a leaf ({@code leaf <operation> <kind>}, a {@code CLIENT}
 * span), and each flow's start ({@code start flow <type>}, current while the flow's first jobs are
 * inserted, so they continue its trace). Each is current while it lasts, so an HTTP client's own
 * spans nest under it, and carries its repetition safety and outcome. All of it is one engine
 * listener.
 */
public final class JobTracing implements EngineObserver {
    public static final String INSTRUMENTATION = "dev.converge";
    private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();
    private static final TextMapGetter<Map<String, String>> GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    /** Outcomes that are answers, not failures: the span stays unset rather than ERROR. */
    private static final Set<String> ANSWERS = Set.of("ok", "found", "absent", "created", "adopted", "existing",
            "started", "held");

    private final Tracer tracer;
    private final Store store;
    private final JobStore jobs;

    private JobTracing(Tracer tracer, Store store, JobStore jobs) {
        this.tracer = tracer;
        this.store = store;
        this.jobs = jobs;
    }

    /** Binds tracing to an engine's runtime; {@code openTelemetry} is an {@code io.opentelemetry.api.OpenTelemetry}. */
    public static void bind(EngineRuntime runtime, Store store, Object openTelemetry) {
        if (!(openTelemetry instanceof OpenTelemetry otel)) {
            throw new IllegalArgumentException("not an OpenTelemetry: " + openTelemetry);
        }
        JobStore jobs = runtime.jobs();
        jobs.traceParentFrom(() -> {
            String current = currentTraceParent();
            return current != null ? current : dev.converge.queue.internal.TraceHandoff.inherited();
        });
        runtime.observeEngine(new JobTracing(otel.getTracer(INSTRUMENTATION), store, jobs));
        runtime.handOffTraces();
    }

    /** The W3C traceparent of the calling thread's current span, or null when there is none. */
    public static String currentTraceParent() {
        SpanContext sc = io.opentelemetry.api.trace.Span.current().getSpanContext();
        if (!sc.isValid()) {
            return null;
        }
        Map<String, String> carrier = new HashMap<>();
        W3C.inject(Context.current(), carrier, Map::put);
        return carrier.get("traceparent");
    }

    @Override
    public Activity running(LeasedJob job) {
        String parent = store.withConnection(c -> jobs.traceParentOf(c, job.id())).orElse(null);
        Context parentContext = parent == null ? Context.root()
                : W3C.extract(Context.root(), Map.of("traceparent", parent), GETTER);
        var builder = tracer.spanBuilder("run " + job.kind()).setParent(parentContext).setSpanKind(SpanKind.CONSUMER)
                .setAttribute("converge.job.id", job.id())
                .setAttribute("converge.job.type", job.kind())
                .setAttribute("converge.job.queue", job.queue())
                .setAttribute("converge.job.attempt", (long) job.attempt());
        if (job.flowId() != null) {
            builder.setAttribute("converge.flow.id", job.flowId());
            if (job.chainPos() != null) {
                builder.setAttribute("converge.flow.step", (long) job.chainPos()); // the delivery of a flow's step
            }
        }
        io.opentelemetry.api.trace.Span span = builder.startSpan();
        Scope scope = span.makeCurrent();
        boolean traced = span.getSpanContext().isValid();
        if (traced) {
            MDC.put("trace_id", span.getSpanContext().getTraceId());
            MDC.put("span_id", span.getSpanContext().getSpanId());
        }
        return (outcome, error) -> {
            try {
                if (error != null) {
                    span.recordException(error);
                    span.setStatus(StatusCode.ERROR, String.valueOf(error.getMessage()));
                }
            } finally {
                if (traced) {
                    for (String k : List.of("trace_id", "span_id")) {
                        MDC.remove(k);
                    }
                }
                scope.close();
                span.end();
            }
        };
    }

    private Activity open(SpanBuilder builder, String outcomeKey) {
        io.opentelemetry.api.trace.Span span = builder.startSpan();
        Scope scope = span.makeCurrent();
        return (outcome, error) -> {
            try {
                span.setAttribute(outcomeKey, outcome);
                if (error != null || !ANSWERS.contains(outcome)) {
                    if (error != null) {
                        span.recordException(error);
                    }
                    span.setStatus(StatusCode.ERROR, error != null ? String.valueOf(error.getMessage()) : outcome);
                }
            } finally {
                scope.close();
                span.end();
            }
        };
    }

    @Override
    public Activity ensure(String kind, String safety) {
        return open(tracer.spanBuilder("ensure " + kind).setSpanKind(SpanKind.INTERNAL)
                .setAttribute("converge.resource.kind", kind)
                .setAttribute("converge.leaf.safety", safety), "converge.ledger.outcome");
    }

    @Override
    public Activity leafCall(String type, String operation, String safety) {
        return open(tracer.spanBuilder("leaf " + operation + " " + type).setSpanKind(SpanKind.CLIENT)
                .setAttribute("converge.leaf.kind", type)
                .setAttribute("converge.leaf.operation", operation)
                .setAttribute("converge.leaf.safety", safety), "converge.leaf.outcome");
    }

    @Override
    public Activity flowStart(String kind) {
        return open(tracer.spanBuilder("start flow " + kind).setSpanKind(SpanKind.INTERNAL)
                .setAttribute("converge.flow.type", kind), "converge.flow.outcome");
    }
}
