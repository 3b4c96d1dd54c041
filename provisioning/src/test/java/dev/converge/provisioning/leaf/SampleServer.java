package dev.converge.provisioning.leaf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback HTTP server that answers with the provider samples under {@code samples/}: each
 * route ({@code METHOD raw-path-and-query}) serves one sample, its status, headers and body, with
 * the provider's origin replaced by this server's and {@code {{reset}}} by an epoch second in
 * the near future. Every request is recorded with its headers, so a test can check what a
 * driver sent.
 */
final class SampleServer implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> PROVIDER_ORIGINS = List.of("https://api.github.com", "https://forge.laravel.com",
            "https://api.keygen.sh");

    record Recorded(String method, String pathAndQuery, Headers headers, String body) {
    }

    private final HttpServer server;
    private final Map<String, String> routes = new ConcurrentHashMap<>();
    final List<Recorded> requests = new CopyOnWriteArrayList<>();
    volatile long resetEpochSecond = Instant.now().getEpochSecond() + 30;
    /** Where the samples' provider origins point: this server unless a test says otherwise. */
    volatile String origin;

    SampleServer() {
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", this::answer);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Answers {@code method rawPathAndQuery} with the sample at {@code samples/<sample>}. */
    SampleServer route(String method, String rawPathAndQuery, String sample) {
        routes.put(method + " " + rawPathAndQuery, sample);
        return this;
    }

    static JsonNode sample(String name) {
        try (InputStream in = SampleServer.class.getResourceAsStream("/samples/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no sample " + name);
            }
            return JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String localise(String text) {
        for (String provider : PROVIDER_ORIGINS) {
            text = text.replace(provider, origin == null ? url() : origin);
        }
        return text.replace("{{reset}}", Long.toString(resetEpochSecond));
    }

    private void answer(HttpExchange exchange) throws IOException {
        String target = exchange.getRequestURI().getRawPath()
                + (exchange.getRequestURI().getRawQuery() == null ? "" : "?" + exchange.getRequestURI().getRawQuery());
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        requests.add(new Recorded(exchange.getRequestMethod(), target, exchange.getRequestHeaders(), body));
        String name = routes.get(exchange.getRequestMethod() + " " + target);
        if (name == null) {
            byte[] notFound = "{\"message\":\"Not Found\"}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(404, notFound.length);
            exchange.getResponseBody().write(notFound);
            exchange.close();
            return;
        }
        JsonNode sample = sample(name);
        sample.path("headers").fields().forEachRemaining(h -> exchange.getResponseHeaders()
                .add(h.getKey(), localise(h.getValue().asText())));
        byte[] out = localise(JSON.writeValueAsString(sample.get("body"))).getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(sample.path("status").asInt(), out.length);
        exchange.getResponseBody().write(out);
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
