package dev.converge.tracing.internal;

import dev.converge.queue.internal.EngineObserver;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.util.Set;

/**
 * Spans of what a delivery does inside its handler: each {@code ensure()} ({@code ensure <kind>}),
 * each call to a leaf ({@code leaf <operation> <kind>}, a {@code CLIENT} span), and each flow's
 * start ({@code start flow <type>}, current while the flow's first jobs are inserted, so they
 * continue its trace). Each is current while it lasts, so an HTTP client's own spans nest under it,
 * and carries its repetition safety and outcome.
 */
final class EngineSpans implements EngineObserver {
    /** Outcomes that are answers, not failures: the span stays unset rather than ERROR. */
    private static final Set<String> ANSWERS = Set.of("ok", "found", "absent", "created", "adopted", "existing",
            "started", "held");

    private final Tracer tracer;

    EngineSpans(Tracer tracer) {
        this.tracer = tracer;
    }

    private Activity open(SpanBuilder builder, String outcomeKey) {
        Span span = builder.startSpan();
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
