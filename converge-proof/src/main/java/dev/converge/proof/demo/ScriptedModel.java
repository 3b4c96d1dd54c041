package dev.converge.proof.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * A chat model that follows a script, served over real HTTP on loopback with the OpenAI
 * chat-completions API ({@code POST /v1/chat/completions}): each request gets the script's next
 * reply, a tool call or an answer, which may be written from what the request carries (the
 * tool results fed back). It records every request. The demo converses with it; tests too.
 */
public final class ScriptedModel implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One scripted reply, written from the request it answers. */
    @FunctionalInterface
    public interface Reply extends Function<JsonNode, ObjectNode> {
    }

    private final HttpServer server;
    private final List<Reply> script = new CopyOnWriteArrayList<>();
    private final List<JsonNode> requests = new CopyOnWriteArrayList<>();
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile Reply otherwise;
    private volatile int holdAt = -1;
    private final CountDownLatch held = new CountDownLatch(1);
    private int next;
    private int replies;

    private ScriptedModel(HttpServer server) {
        this.server = server;
    }

    public static ScriptedModel start() {
        try {
            HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
            ScriptedModel m = new ScriptedModel(s);
            s.createContext("/v1/chat/completions", m::handle);
            s.setExecutor(Executors.newCachedThreadPool(r -> {
                Thread t = new Thread(r, "scripted-model");
                t.setDaemon(true);
                return t;
            }));
            s.start();
            return m;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the scripted model server", e);
        }
    }

    /** The base URL a chat-completions client is given. */
    public String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    /** Appends replies to the script. */
    public ScriptedModel then(Reply... replies) {
        script.addAll(List.of(replies));
        return this;
    }

    /** The reply to every request once the script is used up. */
    public ScriptedModel otherwise(Reply reply) {
        this.otherwise = reply;
        return this;
    }

    /** The request numbered {@code n} (0-based) is held unanswered until {@link #close()}; see {@link #awaitHeld}. */
    public ScriptedModel holdRequest(int n) {
        holdAt = n;
        return this;
    }

    public boolean awaitHeld(java.time.Duration d) throws InterruptedException {
        return held.await(d.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /** Every request received, in order. */
    public List<JsonNode> requests() {
        return List.copyOf(requests);
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            JsonNode req;
            try (InputStream in = ex.getRequestBody()) {
                req = JSON.readTree(in);
            }
            int n;
            int r;
            synchronized (this) {
                requests.add(req);
                n = next++;
                r = n == holdAt ? -1 : replies++; // a held request uses no reply of the script
            }
            if (n == holdAt) {
                held.countDown();
                try {
                    released.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return;
            }
            Reply reply = r < script.size() ? script.get(r) : otherwise;
            if (reply == null) {
                send(ex, 500, "{\"error\":{\"message\":\"the script has no reply " + (r + 1) + "\",\"type\":\"server_error\"}}");
                return;
            }
            ObjectNode message = reply.apply(req);
            ObjectNode body = JSON.createObjectNode();
            body.put("id", "chatcmpl-scripted-" + (n + 1));
            body.put("object", "chat.completion");
            body.put("created", System.currentTimeMillis() / 1000);
            body.put("model", req.path("model").asText("scripted"));
            ObjectNode choice = body.putArray("choices").addObject();
            choice.put("index", 0);
            choice.set("message", message);
            choice.put("finish_reason", message.has("tool_calls") ? "tool_calls" : "stop");
            ObjectNode usage = body.putObject("usage");
            usage.put("prompt_tokens", 1);
            usage.put("completion_tokens", 1);
            usage.put("total_tokens", 2);
            send(ex, 200, JSON.writeValueAsString(body));
        } catch (RuntimeException e) {
            send(ex, 500, "{\"error\":{\"message\":\"script failed: " + e.getClass().getSimpleName() + "\"}}");
        }
    }

    private static void send(HttpExchange ex, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        ex.getResponseBody().write(bytes);
    }

    // ---- replies

    /** A reply asking for tool calls: each {@code {id, name, arguments-object}}. */
    public static ObjectNode toolCalls(Object[]... calls) {
        ObjectNode m = JSON.createObjectNode();
        m.put("role", "assistant");
        m.putNull("content");
        ArrayNode arr = m.putArray("tool_calls");
        for (Object[] c : calls) {
            ObjectNode call = arr.addObject();
            call.put("id", (String) c[0]);
            call.put("type", "function");
            ObjectNode fn = call.putObject("function");
            fn.put("name", (String) c[1]);
            try {
                fn.put("arguments", JSON.writeValueAsString(c[2]));
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException(e);
            }
        }
        return m;
    }

    /** One tool call. */
    public static Object[] call(String id, String name, Object arguments) {
        return new Object[] {id, name, arguments};
    }

    /** A reply answering in words. */
    public static ObjectNode answer(String text) {
        ObjectNode m = JSON.createObjectNode();
        m.put("role", "assistant");
        m.put("content", text);
        return m;
    }

    /** The last tool result in a request, parsed (the service feeds results back as JSON). */
    public static JsonNode lastToolResult(JsonNode request) {
        List<JsonNode> tools = new ArrayList<>();
        for (JsonNode msg : request.path("messages")) {
            if ("tool".equals(msg.path("role").asText())) {
                tools.add(msg);
            }
        }
        if (tools.isEmpty()) {
            return JSON.createObjectNode();
        }
        String content = tools.get(tools.size() - 1).path("content").asText();
        try {
            return JSON.readTree(content);
        } catch (JsonProcessingException e) {
            return JSON.createObjectNode().put("text", content);
        }
    }

    /** The text of the last tool message in a request. */
    public static String lastToolText(JsonNode request) {
        String last = "";
        for (JsonNode msg : request.path("messages")) {
            if ("tool".equals(msg.path("role").asText())) {
                last = msg.path("content").asText();
            }
        }
        return last;
    }

    @Override
    public void close() {
        released.countDown();
        server.stop(0);
    }
}
