package dev.converge.provisioning.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Tracing is on only when the OTEL_* environment names an exporter; then spans go out by OTLP. */
class ServiceTracingTest {
    @Test
    void onlyAnExporterInTheEnvironmentTurnsTracingOn() {
        assertThat(ServiceTracing.wanted(Map.of())).isFalse();
        assertThat(ServiceTracing.wanted(Map.of("OTEL_SERVICE_NAME", "converge"))).isFalse();
        assertThat(ServiceTracing.wanted(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"))).isTrue();
        assertThat(ServiceTracing.wanted(Map.of("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://collector:4318/v1/traces")))
                .isTrue();
        assertThat(ServiceTracing.wanted(Map.of("OTEL_TRACES_EXPORTER", "otlp"))).isTrue();
        assertThat(ServiceTracing.wanted(Map.of("OTEL_TRACES_EXPORTER", "none"))).isFalse();
        assertThat(ServiceTracing.wanted(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318",
                "OTEL_SDK_DISABLED", "true"))).isFalse();
    }

    @Test
    void spansAreExportedByOtlpOverHttpToTheConfiguredEndpoint() throws Exception {
        List<String> received = new CopyOnWriteArrayList<>();
        HttpServer collector = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        collector.createContext("/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            received.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath() + " "
                    + exchange.getRequestHeaders().getFirst("Content-Type") + " " + body.length);
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        collector.start();
        OpenTelemetrySdk sdk = ServiceTracing.autoconfigured(Map.of(
                "otel.exporter.otlp.endpoint", "http://127.0.0.1:" + collector.getAddress().getPort(),
                "otel.exporter.otlp.protocol", "http/protobuf",
                "otel.bsp.schedule.delay", "50"), false);
        try {
            sdk.getTracer("test").spanBuilder("exported").startSpan().end();
            sdk.getSdkTracerProvider().forceFlush().join(10, java.util.concurrent.TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(10)).until(() -> !received.isEmpty());
            assertThat(received).allSatisfy(r -> assertThat(r).startsWith("POST /v1/traces application/x-protobuf"));
        } finally {
            sdk.close();
            collector.stop(0);
        }
    }
}
