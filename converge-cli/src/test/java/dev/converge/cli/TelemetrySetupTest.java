package dev.converge.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Telemetry as the docs set it up, tried in a real process: with only
 * {@code OTEL_EXPORTER_OTLP_ENDPOINT} a demo's spans reach a receiver on loopback; in JSON log mode
 * every line on stderr is a JSON object with an ISO-8601 timestamp, including the one that says a
 * tracing setup could not be applied.
 */
class TelemetrySetupTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aDemoWithOnlyTheEndpointSetSendsItsSpansAndLogsJsonLines(@TempDir Path dir) throws Exception {
        AtomicInteger exports = new AtomicInteger();
        HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/v1/traces", exchange -> {
            if (exchange.getRequestMethod().equals("POST") && exchange.getRequestBody().readAllBytes().length > 0) {
                exports.incrementAndGet();
            }
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        receiver.start();
        try {
            List<String> lines = demo(dir, Map.of("OTEL_EXPORTER_OTLP_ENDPOINT",
                    "http://127.0.0.1:" + receiver.getAddress().getPort(), "CONVERGE_LOG_LEVEL", "INFO"));
            assertThat(exports.get()).as("exports of spans received").isPositive();
            assertThat(lines).anyMatch(l -> l.contains("tracing on"));
        } finally {
            receiver.stop(0);
        }
    }

    /**
     * Under the OpenTelemetry Java agent, with only the endpoint set: the engine's job spans go out
     * through the agent (one SDK, the agent's), and the agent's own log lines join the JSON log.
     */
    @Test
    void underTheJavaAgentTheEnginesSpansGoOutThroughIt(@TempDir Path dir) throws Exception {
        Path agent = Path.of("target", "otel-agent", "opentelemetry-javaagent.jar");
        assertThat(agent).as("copied by the build (maven-dependency-plugin)").exists();
        AtomicInteger engineSpans = new AtomicInteger();
        HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            // protobuf keeps strings as they are: an export holding a job's span holds its attribute's name, and one
            // made by the agent's SDK (not a second SDK of the service's) names the agent's distribution in its resource
            String text = new String(body, StandardCharsets.ISO_8859_1);
            if (exchange.getRequestURI().getPath().equals("/v1/traces") && text.contains("converge.job.type")
                    && text.contains("opentelemetry-java-instrumentation")) {
                engineSpans.incrementAndGet();
            }
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        receiver.start();
        try {
            List<String> lines = demo(dir, Map.of("OTEL_EXPORTER_OTLP_ENDPOINT",
                    "http://127.0.0.1:" + receiver.getAddress().getPort(), "CONVERGE_LOG_LEVEL", "INFO",
                    "OTEL_JAVAAGENT_LOGGING", "application", "OTEL_METRICS_EXPORTER", "none", "OTEL_LOGS_EXPORTER", "none"),
                    "-javaagent:" + agent.toAbsolutePath());
            assertThat(engineSpans.get()).as("exports of the agent's SDK holding the engine's job spans").isPositive();
            assertThat(lines).as("one SDK: the service does not try to set a second global one")
                    .noneMatch(l -> l.contains("GlobalOpenTelemetry.set calls are ignored"));
            assertThat(lines).anyMatch(l -> l.contains("tracing on: through the OpenTelemetry Java agent"));
        } finally {
            receiver.stop(0);
        }
    }

    @Test
    void aTracingSetupThatCannotBeAppliedSaysSoInTheLogsOwnFormat(@TempDir Path dir) throws Exception {
        List<String> lines = demo(dir, Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1",
                "OTEL_EXPORTER_OTLP_PROTOCOL", "carrier-pigeon"));
        assertThat(lines).anyMatch(l -> l.contains("tracing stays off"));
    }

    /** Runs a small demo in its own process with {@code env} and JSON logs; its stderr, every line checked. */
    private static List<String> demo(Path dir, Map<String, String> env, String... jvmOptions)
            throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of(java()));
        command.addAll(List.of(jvmOptions));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.converge.cli.Main",
                "demo", "--sites", "2", "--seed", "5", "--fault-rate", "0", "--crash-rate", "0", "--teardown", "0",
                "--log-format", "json")); // the service's logback.xml (the test class path has a logback-test.xml)
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("OTEL_") || k.startsWith("CONVERGE_"));
        pb.environment().putAll(env);
        Process p = pb.start();
        assertThat(p.waitFor(240, TimeUnit.SECONDS)).as("the demo ended").isTrue();
        List<String> lines = Files.readAllLines(dir.resolve("err.txt"), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(String.join("\n", lines)).isZero();
        for (String line : lines) {
            if (line.isBlank() || line.startsWith("OpenJDK 64-Bit Server VM warning:")) {
                continue; // the JVM's own, before any of the application's code (an agent on the boot class path)
            }
            JsonNode json;
            try {
                json = JSON.readTree(line);
            } catch (IOException e) {
                throw new AssertionError("not a JSON line: " + line);
            }
            assertThat(json.isObject()).as(line).isTrue();
            assertThat(Instant.parse(json.get("timestamp").asText())).as(line).isNotNull();
        }
        return lines;
    }

    private static String java() {
        return ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString());
    }
}
