package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.provisioning.trace.ServiceTracing;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * One provisioning is one connected trace: a POST /v1/sites carrying a W3C traceparent continues
 * that trace through the request's span, the site flow's start, every step's delivery, each
 * ensure() and each call to a leaf.
 */
class ProvisioningTraceTest {
    static final String CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    static final String CALLER_SPAN = "00f067aa0ba902b7";

    @Test
    void aSiteRequestWithTraceparentIsOneConnectedTraceThroughItsFlowAndLeafCalls() {
        InMemorySpanExporter exporter = InMemorySpanExporter.create();
        SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
        ServiceTracing.use(OpenTelemetrySdk.builder().setTracerProvider(provider).build());
        try (ApiHarness api = new ApiHarness()) {
            String token = api.tenant().token();
            String lead = api.lead(token);
            String sub = ApiHarness.subdomain("traced");
            HttpRequest.Builder post = api.client.request("/v1/sites", token).header("Content-Type", "application/json")
                    .header("Idempotency-Key", "k-" + sub)
                    .header("traceparent", "00-" + CALLER_TRACE + "-" + CALLER_SPAN + "-01")
                    .POST(HttpRequest.BodyPublishers.ofString(ApiHarness.siteBody(lead, sub)));
            var r = api.client.send(post);
            assertThat(r.status()).as(r.toString()).isEqualTo(202);
            String id = r.json().get("site_id").asText();
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    api.client.get("/v1/sites/" + id, token).json().get("state").asText().equals("active"));
            await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(10)).until(() -> spansOf(exporter).stream()
                    .filter(s -> s.getName().startsWith("ensure ")).count() >= 3);

            List<SpanData> trace = spansOf(exporter);
            List<String> names = trace.stream().map(SpanData::getName).toList();
            SpanData request = trace.stream().filter(s -> s.getKind() == SpanKind.SERVER).findFirst()
                    .orElseThrow(() -> new AssertionError("no server span in " + names));
            assertThat(request.getName()).isEqualTo("POST /v1/sites");
            assertThat(request.getParentSpanId()).as("the request continues the caller's span").isEqualTo(CALLER_SPAN);
            assertThat(names).as(names.toString()).anyMatch(n -> n.startsWith("start flow "))
                    .anyMatch(n -> n.startsWith("run "))
                    .anyMatch(n -> n.startsWith("leaf create "));
            assertThat(names.stream().filter(n -> n.startsWith("ensure ")).count()).as("three resources").isGreaterThanOrEqualTo(3);
            Set<String> ids = trace.stream().map(SpanData::getSpanId).collect(Collectors.toSet());
            assertThat(trace).as("connected: every span's parent is in the trace, or is the caller's span")
                    .allSatisfy(s -> assertThat(ids.contains(s.getParentSpanId()) || s.getParentSpanId().equals(CALLER_SPAN))
                            .as(s.getName()).isTrue());
            assertThat(exporter.getFinishedSpanItems()).as("no leaf call or ensure() of this provisioning outside its trace")
                    .filteredOn(s -> s.getName().startsWith("ensure ") || s.getName().startsWith("leaf "))
                    .allSatisfy(s -> assertThat(s.getTraceId()).isEqualTo(CALLER_TRACE));
        } finally {
            ServiceTracing.use(null);
            provider.close();
        }
    }

    static List<SpanData> spansOf(InMemorySpanExporter exporter) {
        return exporter.getFinishedSpanItems().stream().filter(s -> s.getTraceId().equals(CALLER_TRACE)).toList();
    }
}
