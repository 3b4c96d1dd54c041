package dev.converge.provisioning.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * MCP over stdio, relayed to a server's {@code /mcp} (streamable HTTP) with one agent token. The
 * agent's host runs this instead of a server of its own, so what it holds is that token and
 * nothing else: no database URL, no password, no way to read another tenant. Each JSON-RPC line
 * from stdin is POSTed; the answer (JSON or an event stream) goes to stdout as lines. A refusal of
 * the HTTP layer (401, 403, 429) comes back to the agent as a JSON-RPC error with the server's
 * words. Requests run concurrently; {@code initialize} first, alone, to learn the session id.
 */
public final class StdioBridge {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int AUTH_ERROR = -32001;

    private final URI endpoint;
    private final String token;
    private final PrintStream log;
    private final HttpClient http;
    private volatile String sessionId;
    private volatile String protocolVersion;
    private OutputStream out;

    public StdioBridge(URI serverUrl, String token, PrintStream log) {
        String base = serverUrl.toString().endsWith("/") ? serverUrl.toString() : serverUrl + "/";
        this.endpoint = URI.create(base).resolve("mcp");
        this.token = token;
        this.log = log;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10))
                .build();
    }

    /** Relays until stdin ends, then closes the session. */
    public void run(InputStream in, OutputStream out) throws IOException, InterruptedException {
        this.out = out;
        ExecutorService calls = Executors.newFixedThreadPool(8, r -> {
            Thread t = new Thread(r, "converge-mcp-bridge");
            t.setDaemon(true);
            return t;
        });
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line; (line = lines.readLine()) != null; ) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode message;
                try {
                    message = JSON.readTree(line);
                } catch (IOException e) {
                    emit(error(null, -32700, "Parse error: not a JSON-RPC message"));
                    continue;
                }
                String method = message.path("method").asText("");
                boolean request = message.has("id") && message.has("method");
                if (method.equals("initialize") || !request) {
                    relay(message); // initialize sets the session; notifications keep their order
                } else {
                    calls.submit(() -> relay(message));
                }
            }
        } finally {
            calls.shutdown();
            calls.awaitTermination(60, TimeUnit.SECONDS);
            closeSession();
        }
    }

    private Void relay(JsonNode message) {
        JsonNode id = message.get("id");
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(endpoint).timeout(Duration.ofMinutes(5))
                    .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                    .header("Authorization", "Bearer " + token)
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(message)));
            withSession(b);
            HttpResponse<Stream<String>> r = http.send(b.build(), HttpResponse.BodyHandlers.ofLines());
            r.headers().firstValue("Mcp-Session-Id").ifPresent(s -> sessionId = s);
            String type = r.headers().firstValue("Content-Type").orElse("");
            if (r.statusCode() >= 400) {
                String body = String.join("\n", (Iterable<String>) r.body()::iterator);
                String said = problemDetail(body, r.statusCode());
                log.println("mcp: the server answered " + r.statusCode() + ": " + said);
                if (id != null) {
                    emit(error(id, AUTH_ERROR, said));
                }
                return null;
            }
            if (type.startsWith("text/event-stream")) {
                events(r.body().iterator());
            } else {
                try (Stream<String> body = r.body()) {
                    String text = String.join("\n", (Iterable<String>) body::iterator);
                    if (!text.isBlank()) {
                        JsonNode answer = JSON.readTree(text);
                        learnVersion(answer);
                        emit(answer);
                    }
                }
            }
        } catch (IOException e) {
            log.println("mcp: cannot reach " + endpoint + ": " + e.getMessage());
            if (id != null) {
                emit(error(id, -32603, "The Converge server at " + endpoint + " could not be reached; try again later."));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return null;
    }

    /** Server-sent events: each event's data lines joined are one JSON-RPC message. */
    private void events(Iterator<String> lines) throws IOException {
        StringBuilder data = new StringBuilder();
        while (lines.hasNext()) {
            String line = lines.next();
            if (line.isEmpty()) {
                if (data.length() > 0) {
                    JsonNode answer = JSON.readTree(data.toString());
                    learnVersion(answer);
                    emit(answer);
                    data.setLength(0);
                }
            } else if (line.startsWith("data:")) {
                if (data.length() > 0) {
                    data.append('\n');
                }
                data.append(line.substring(5).stripLeading());
            }
        }
        if (data.length() > 0) {
            emit(JSON.readTree(data.toString()));
        }
    }

    private void learnVersion(JsonNode answer) {
        JsonNode v = answer.path("result").path("protocolVersion");
        if (v.isTextual()) {
            protocolVersion = v.asText();
        }
    }

    private void withSession(HttpRequest.Builder b) {
        if (sessionId != null) {
            b.header("Mcp-Session-Id", sessionId);
        }
        if (protocolVersion != null) {
            b.header("MCP-Protocol-Version", protocolVersion);
        }
    }

    private void closeSession() {
        if (sessionId == null) {
            return;
        }
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(endpoint).timeout(Duration.ofSeconds(5))
                    .header("Authorization", "Bearer " + token).DELETE();
            withSession(b);
            http.send(b.build(), HttpResponse.BodyHandlers.discarding());
        } catch (IOException e) {
            log.println("mcp: could not close the session: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String problemDetail(String body, int status) {
        try {
            JsonNode p = JSON.readTree(body);
            if (p.path("detail").isTextual()) {
                return p.get("detail").asText();
            }
        } catch (IOException notJson) {
            // fall through to the status
        }
        return "HTTP " + status;
    }

    private static ObjectNode error(JsonNode id, int code, String message) {
        ObjectNode e = JSON.createObjectNode().put("jsonrpc", "2.0");
        e.set("id", id);
        e.putObject("error").put("code", code).put("message", message);
        return e;
    }

    /** One message, one line; a host that stopped reading is past helping, so that is only logged. */
    private synchronized void emit(JsonNode message) {
        try {
            out.write(JSON.writeValueAsBytes(message));
            out.write('\n');
            out.flush();
        } catch (IOException e) {
            log.println("mcp: cannot write to stdout: " + e.getMessage());
        }
    }
}
