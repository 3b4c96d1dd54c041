package dev.converge.provisioning.trace;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The documented setup, only {@code OTEL_EXPORTER_OTLP_ENDPOINT}, exports spans: the SDK's default
 * protocol is gRPC, which the bundled JDK sender cannot speak, so the service defaults to
 * {@code http/protobuf} (the endpoint's {@code /v1/traces}). A receiver on loopback sees them.
 */
class OtlpEndpointOnlyTest {

    @Test
    void onlyTheEndpointSendsTheSpansOverHttpProtobuf() throws Exception {
        List<String> received = Collections.synchronizedList(new ArrayList<>());
        HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/", exchange -> {
            int bytes = exchange.getRequestBody().readAllBytes().length;
            received.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath() + " "
                    + exchange.getRequestHeaders().getFirst("Content-Type") + " " + (bytes > 0 ? "with spans" : "empty"));
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        receiver.start();
        try {
            OpenTelemetrySdk sdk = ServiceTracing.autoconfigured(Map.of("otel.exporter.otlp.endpoint",
                    "http://127.0.0.1:" + receiver.getAddress().getPort()), false);
            try {
                Span span = sdk.getTracer("test").spanBuilder("site.request").startSpan();
                span.end();
                assertThat(sdk.getSdkTracerProvider().forceFlush().join(10, TimeUnit.SECONDS).isSuccess()).isTrue();
            } finally {
                sdk.close();
            }
            assertThat(received).contains("POST /v1/traces application/x-protobuf with spans");
        } finally {
            receiver.stop(0);
        }
    }
}
