package dev.converge.provisioning.leaf;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Our calls to leaves carry the calling span's W3C traceparent, and nothing when there is no span. */
class LeafHttpTraceTest {
    @Test
    void aLeafCallCarriesTheCurrentSpansTraceparent() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        HttpServer leafServer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        leafServer.createContext("/", exchange -> {
            seen.add(String.valueOf(exchange.getRequestHeaders().getFirst("traceparent")));
            byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        leafServer.start();
        SdkTracerProvider provider = SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(InMemorySpanExporter.create())).build();
        OpenTelemetrySdk otel = OpenTelemetrySdk.builder().setTracerProvider(provider).build();
        try {
            LeafHttp http = new LeafHttp("test-leaf", HttpLeafConfig.of("http://127.0.0.1:" + leafServer.getAddress().getPort(),
                    ApiToken.of("t0ken-for-test")));
            http.get("/things", LeafHttp.Effect.READS);
            Span span = otel.getTracer("test").spanBuilder("leaf call").startSpan();
            try (Scope ignored = span.makeCurrent()) {
                http.post("/things", java.util.Map.of("name", "x"), java.util.Map.of());
            } finally {
                span.end();
            }
            assertThat(seen).hasSize(2);
            assertThat(seen.get(0)).as("no span, no header").isEqualTo("null");
            assertThat(seen.get(1)).as("version, trace id, span id, then the flags").startsWith("00-"
                    + span.getSpanContext().getTraceId() + "-" + span.getSpanContext().getSpanId() + "-");
        } finally {
            provider.close();
            leafServer.stop(0);
        }
    }
}
