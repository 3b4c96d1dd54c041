package dev.converge.leafsim;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.converge.leafsim.inventory.Inventory;
import dev.converge.leafsim.inventory.SimResource;
import io.javalin.http.Context;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A license service shaped like Statamic's Sites API: {@code POST /sites {name, domain}} (or
 * {@code domains}) answers {@code {"data": {"name", "key", "domains": [...], "created_at"}}} and has
 * no uniqueness at all, so creating twice makes two sites; {@code DELETE /sites/{key}} answers
 * {@code {"message": ...}}. It is the one leaf that honours {@code Idempotency-Key}.
 */
final class LicenseLeaf implements SimulatedLeaf {
    private final LeafSimParts parts;
    private final Inventory inventory;
    private final IdempotencyKeys idempotencyKeys;

    LicenseLeaf(LeafSimParts parts) {
        this.parts = parts;
        this.inventory = new Inventory(LeafSim.LICENSE, this::newKey, parts.clock());
        this.idempotencyKeys = new IdempotencyKeys(parts.clock(), parts.config().idempotencyRetention());
    }

    @Override
    public String name() {
        return LeafSim.LICENSE;
    }

    @Override
    public Inventory inventory() {
        return inventory;
    }

    @Override
    public void register(LeafRoutes routes) {
        routes.post("/sites", "create", this::create);
        routes.get("/sites", "list", this::list);
        routes.get("/sites/{key}", "get", this::get);
        routes.delete("/sites/{key}", "delete", this::delete);
    }

    private SimResponse create(Context ctx) {
        Optional<ObjectNode> parsed = JsonBody.parse(ctx, parts.json());
        if (parsed.isEmpty()) {
            return JsonBody.PROBLEMS_PARSING;
        }
        ObjectNode body = parsed.get();
        String name = JsonBody.text(body, "name");
        // Statamic's Sites API takes a domain, or domains (the first is the production domain), not both
        String domain = body.has("domains") && body.get("domains").isArray() && !body.get("domains").isEmpty()
                && body.get("domains").get(0).isTextual() && !body.has("domain")
                ? body.get("domains").get(0).asText() : JsonBody.text(body, "domain");
        if (name == null || domain == null) {
            String field = name == null ? "name" : "domain";
            String message = "The " + field + " field is required.";
            return SimResponse.of(422, Map.of("message", message, "errors", Map.of(field, List.of(message))));
        }
        String key = ctx.header("Idempotency-Key");
        if (key != null && (key.isBlank() || key.length() > 255)) {
            return SimResponse.of(400, Map.of("message", "Idempotency-Key must be 1 to 255 characters."));
        }
        synchronized (idempotencyKeys) {
            if (key != null) {
                Optional<IdempotencyKeys.Remembered> seen = idempotencyKeys.lookup(key);
                if (seen.isPresent()) {
                    return seen.get().request().equals(body)
                            ? seen.get().response().withHeader("Idempotent-Replayed", "true")
                            : SimResponse.of(422, Map.of("message",
                                    "This Idempotency-Key was already used with a different request body."));
                }
            }
            SimResource created = inventory.insert(null, domain, name, id -> license(id, name, domain));
            SimResponse response = SimResponse.of(201, Map.of("data", created.fields()));
            if (key != null) {
                idempotencyKeys.remember(key, body, response);
            }
            return response;
        }
    }

    /**
     * Statamic's site list ({@code data} of sites with {@code domains}): without paging parameters,
     * as Statamic documents it, every site in one answer (one consistent read: a lookup by domain
     * that walked numbered pages would skip the site that moves up a page when one before it is
     * deleted between two reads). With {@code page[number]} (from 1) or {@code page[size]} (at most
     * 100), that page; {@code links} carries self, prev, next (null on the last page), first, last
     * and counts.
     */
    private SimResponse list(Context ctx) {
        String domain = ctx.queryParam("domain");
        List<Map<String, Object>> licenses = inventory.inScope(null).stream()
                .filter(license -> domain == null || domain.equals(license.naturalKey()))
                .map(SimResource::fields).toList();
        boolean paged = ctx.queryParam("page[size]") != null || ctx.queryParam("page[number]") != null;
        int size = paged ? Math.min(100, Math.max(1, intParam(ctx.queryParam("page[size]"), 100)))
                : Math.max(1, licenses.size());
        int pages = Math.max(1, (licenses.size() + size - 1) / size);
        int number = Math.min(pages, Math.max(1, intParam(ctx.queryParam("page[number]"), 1)));
        int from = Math.min(licenses.size(), (number - 1) * size);
        int to = Math.min(licenses.size(), from + size);
        String base = ctx.path() + "?" + (domain == null ? "" : "domain=" + URLEncoder.encode(domain, StandardCharsets.UTF_8) + "&");
        Map<String, Object> links = new LinkedHashMap<>();
        links.put("self", base + "page[number]=" + number + "&page[size]=" + size);
        links.put("prev", number > 1 ? base + "page[number]=" + (number - 1) + "&page[size]=" + size : null);
        links.put("next", number < pages ? base + "page[number]=" + (number + 1) + "&page[size]=" + size : null);
        links.put("first", base + "page[number]=1&page[size]=" + size);
        links.put("last", base + "page[number]=" + pages + "&page[size]=" + size);
        links.put("meta", Map.of("pages", pages, "count", licenses.size()));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("data", licenses.subList(from, to));
        body.put("links", links);
        return SimResponse.of(200, body);
    }

    private static int intParam(String value, int fallback) {
        try {
            return value == null || value.isBlank() ? fallback : Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    private SimResponse get(Context ctx) {
        return inventory.byId(ctx.pathParam("key")).map(found -> SimResponse.of(200, Map.of("data", found.fields())))
                .orElseGet(SimResponse::notFound);
    }

    private SimResponse delete(Context ctx) {
        String key = ctx.pathParam("key");
        return inventory.remove(key).map(gone -> SimResponse.of(200, Map.of("message", "Site [" + key + "] deleted.")))
                .orElseGet(SimResponse::notFound);
    }

    private Map<String, Object> license(String key, String name, String domain) {
        Map<String, Object> license = new LinkedHashMap<>();
        license.put("key", key);
        license.put("name", name);
        license.put("domains", List.of(domain));
        license.put("created_at", parts.clock().instant().toString());
        return license;
    }

    /** Called under the inventory's lock; the shared seeded random is guarded by itself. */
    private String newKey() {
        synchronized (parts.ids()) {
            return String.format("%04X-%04X-%04X-%04X", parts.ids().nextInt(0x10000), parts.ids().nextInt(0x10000),
                    parts.ids().nextInt(0x10000), parts.ids().nextInt(0x10000));
        }
    }
}
