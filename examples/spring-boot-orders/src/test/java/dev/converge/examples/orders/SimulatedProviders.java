package dev.converge.examples.orders;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A payment provider and a CRM over real HTTP on loopback, each keeping the ground truth a test
 * checks: every charge ever made (and whether it was refunded), every contact that exists.
 * Faults on demand: the next charge is made and then answered with a 500 (the call took effect,
 * the caller cannot know), and the CRM refuses an email with 422.
 */
final class SimulatedProviders implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    record Charge(String id, String reference, long cents, boolean refunded) {
    }

    final Map<String, Charge> charges = new ConcurrentHashMap<>();
    final Map<String, String> chargeByIdempotencyKey = new ConcurrentHashMap<>();
    final Map<String, Map<String, String>> contacts = new ConcurrentHashMap<>();
    final AtomicInteger chargeCalls = new AtomicInteger();
    volatile boolean failNextChargeAfterCreate;
    volatile String crmRefusesEmail;
    private final AtomicInteger ids = new AtomicInteger();
    private final HttpServer server;

    SimulatedProviders() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.createContext("/payments/charges", this::charges);
        server.createContext("/crm/contacts", this::contacts);
        server.start();
    }

    String paymentsUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/payments";
    }

    String crmUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/crm";
    }

    /** Charges not refunded, by reference. */
    Map<String, Integer> heldCharges() {
        Map<String, Integer> held = new ConcurrentHashMap<>();
        charges.values().stream().filter(c -> !c.refunded()).forEach(c -> held.merge(c.reference(), 1, Integer::sum));
        return held;
    }

    List<String> violations() {
        List<String> out = new ArrayList<>();
        Map<String, Integer> made = new ConcurrentHashMap<>();
        charges.values().forEach(c -> made.merge(c.reference(), 1, Integer::sum));
        made.forEach((ref, n) -> {
            if (n > 1) {
                out.add(n + " charges for " + ref);
            }
        });
        return out;
    }

    private synchronized void charges(HttpExchange x) throws IOException {
        String path = x.getRequestURI().getPath();
        if ("POST".equals(x.getRequestMethod())) {
            chargeCalls.incrementAndGet();
            String key = x.getRequestHeaders().getFirst("Idempotency-Key");
            JsonNode body = JSON.readTree(x.getRequestBody());
            String existing = key == null ? null : chargeByIdempotencyKey.get(key);
            Charge c = existing != null ? charges.get(existing) : null;
            if (c == null) {
                c = new Charge("ch_" + ids.incrementAndGet(), body.get("reference").asText(), body.get("amount_cents").asLong(), false);
                charges.put(c.id(), c);
                if (key != null) {
                    chargeByIdempotencyKey.put(key, c.id());
                }
                if (failNextChargeAfterCreate) {
                    failNextChargeAfterCreate = false;
                    answer(x, 500, Map.of("error", "upstream timeout"));
                    return;
                }
            }
            answer(x, existing != null ? 200 : 201, Map.of("id", c.id(), "reference", c.reference()));
            return;
        }
        if ("DELETE".equals(x.getRequestMethod())) {
            String id = path.substring(path.lastIndexOf('/') + 1);
            Charge c = charges.get(id);
            if (c == null) {
                answer(x, 404, Map.of());
                return;
            }
            charges.put(id, new Charge(c.id(), c.reference(), c.cents(), true));
            answer(x, 204, null);
            return;
        }
        answer(x, 405, Map.of());
    }

    private synchronized void contacts(HttpExchange x) throws IOException {
        String path = x.getRequestURI().getPath();
        switch (x.getRequestMethod()) {
            case "POST" -> {
                JsonNode body = JSON.readTree(x.getRequestBody());
                String ref = body.get("external_ref").asText();
                String email = body.get("email").asText();
                if (email.equals(crmRefusesEmail)) {
                    answer(x, 422, Map.of("error", "email refused"));
                } else if (contacts.values().stream().anyMatch(c -> c.get("external_ref").equals(ref))) {
                    answer(x, 409, Map.of("error", "exists"));
                } else {
                    Map<String, String> c = Map.of("id", "ct_" + ids.incrementAndGet(), "external_ref", ref, "email", email,
                            "tag", body.get("tag").asText());
                    contacts.put(c.get("id"), c);
                    answer(x, 201, c);
                }
            }
            case "GET" -> {
                String query = x.getRequestURI().getRawQuery();
                String ref = query == null ? "" : URLDecoder.decode(query.replace("external_ref=", ""), StandardCharsets.UTF_8);
                var found = contacts.values().stream().filter(c -> c.get("external_ref").equals(ref)).findFirst();
                answer(x, found.isPresent() ? 200 : 404, found.orElse(Map.of()));
            }
            case "DELETE" -> {
                String id = path.substring(path.lastIndexOf('/') + 1);
                answer(x, contacts.remove(id) != null ? 204 : 404, null);
            }
            default -> answer(x, 405, Map.of());
        }
    }

    private static void answer(HttpExchange x, int status, Object body) throws IOException {
        byte[] bytes = body == null ? new byte[0] : JSON.writeValueAsBytes(body);
        x.getResponseHeaders().set("Content-Type", "application/json");
        x.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            x.getResponseBody().write(bytes);
        }
        x.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
