package dev.converge.provisioning.trace;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service's traces. Off unless the standard {@code OTEL_*} environment names an exporter
 * ({@code OTEL_EXPORTER_OTLP_ENDPOINT}, {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT} or
 * {@code OTEL_TRACES_EXPORTER}; {@code OTEL_SDK_DISABLED=true} keeps it off): then the SDK is
 * configured from that environment (OTLP by default), once per process. Under the OpenTelemetry
 * Java agent, the agent's instance is used instead (it read the same environment). An embedding
 * application or a test may hand its own {@link OpenTelemetry} instead ({@link #use}).
 * W3C {@code traceparent} is read from our API's requests and written on our calls to leaves.
 */
public final class ServiceTracing {
    private static final Logger log = LoggerFactory.getLogger(ServiceTracing.class);
    private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();
    static final List<String> EXPORTER_VARIABLES = List.of("OTEL_EXPORTER_OTLP_ENDPOINT",
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_TRACES_EXPORTER");

    private static OpenTelemetry configured;
    private static boolean environmentRead;

    private ServiceTracing() {
    }

    /** Traces with {@code otel} from now on (null: back to the environment's choice). For embedding and tests. */
    public static synchronized void use(OpenTelemetry otel) {
        configured = otel;
        environmentRead = otel != null;
    }

    /** The OpenTelemetry the service traces with, or empty when tracing is off. */
    public static synchronized Optional<OpenTelemetry> openTelemetry() {
        if (!environmentRead) {
            environmentRead = true;
            if (underJavaAgent()) {
                // the agent configured the SDK from the same OTEL_* environment and owns the global instance:
                // building a second one would fail (and export twice)
                configured = io.opentelemetry.api.GlobalOpenTelemetry.get();
                log.info("tracing on: through the OpenTelemetry Java agent");
            } else if (wanted(System.getenv())) {
                try {
                    configured = autoconfigured(Map.of(), true);
                    log.info("tracing on: exporting as the OTEL_* environment says");
                } catch (RuntimeException e) {
                    log.warn("tracing stays off: the OTEL_* environment could not be applied: {}", e.getMessage());
                }
            }
        }
        return Optional.ofNullable(configured);
    }

    /**
     * The SDK as the {@code OTEL_*} environment (and {@code otel.*} system properties) say, over
     * {@code properties}, over our defaults: traces only (the service's metrics are Micrometer's,
     * on /metrics), so no OTLP metrics or logs unless asked for; OTLP over {@code http/protobuf},
     * which the bundled JDK sender speaks (the SDK's own default, gRPC, needs a sender we do not
     * ship: {@code OTEL_EXPORTER_OTLP_PROTOCOL=grpc} with one on the class path still chooses it).
     */
    static io.opentelemetry.sdk.OpenTelemetrySdk autoconfigured(Map<String, String> properties, boolean global) {
        Map<String, String> defaults = new java.util.HashMap<>(Map.of("otel.metrics.exporter", "none",
                "otel.logs.exporter", "none", "otel.service.name", "converge",
                "otel.exporter.otlp.protocol", "http/protobuf"));
        defaults.putAll(properties);
        var builder = AutoConfiguredOpenTelemetrySdk.builder().addPropertiesSupplier(() -> defaults);
        if (global) {
            builder.setResultAsGlobal();
        }
        return builder.build().getOpenTelemetrySdk();
    }

    /** Whether this JVM runs under the OpenTelemetry Java agent ({@code -javaagent:opentelemetry-javaagent.jar}). */
    static boolean underJavaAgent() {
        try {
            Class.forName("io.opentelemetry.javaagent.OpenTelemetryAgent", false, ClassLoader.getSystemClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Whether the environment asks for traces to be exported. */
    static boolean wanted(Map<String, String> env) {
        if ("true".equalsIgnoreCase(env.getOrDefault("OTEL_SDK_DISABLED", "").trim())) {
            return false;
        }
        for (String v : EXPORTER_VARIABLES) {
            String value = env.get(v);
            if (value != null && !value.isBlank() && !(v.equals("OTEL_TRACES_EXPORTER") && value.trim().equals("none"))) {
                return true;
            }
        }
        return false;
    }

    /** Writes the current span's context as W3C {@code traceparent} (and {@code tracestate}) headers; nothing without one. */
    public static void inject(BiConsumer<String, String> header) {
        if (!Span.current().getSpanContext().isValid()) {
            return;
        }
        W3C.inject(Context.current(), header, (h, k, v) -> h.accept(k, v));
    }

    /** A server span of one of our API's requests, current on the handling thread until {@link Request#end}. */
    public interface Request {
        Request NONE = status -> {
        };

        void end(int status);
    }

    /**
     * Starts the span of a request to our API, as a child of its {@code traceparent} header when it
     * carries a valid one (a malformed header is ignored: the request starts a new trace).
     */
    public static Request serverSpan(String method, String path, Function<String, String> headers) {
        Optional<OpenTelemetry> otel = openTelemetry();
        if (otel.isEmpty()) {
            return Request.NONE;
        }
        Context parent = W3C.extract(Context.root(), headers, new TextMapGetter<>() {
            @Override
            public Iterable<String> keys(Function<String, String> carrier) {
                return List.of("traceparent", "tracestate");
            }

            @Override
            public String get(Function<String, String> carrier, String key) {
                return carrier == null ? null : carrier.apply(key);
            }
        });
        Span span = otel.get().getTracer("dev.converge.provisioning").spanBuilder(method + " " + path)
                .setParent(parent).setSpanKind(SpanKind.SERVER)
                .setAttribute("http.request.method", method)
                .setAttribute("url.path", path)
                .startSpan();
        Scope scope = span.makeCurrent();
        return status -> {
            try {
                span.setAttribute("http.response.status_code", (long) status);
                if (status >= 500) {
                    span.setStatus(StatusCode.ERROR);
                }
            } finally {
                scope.close();
                span.end();
            }
        };
    }
}
