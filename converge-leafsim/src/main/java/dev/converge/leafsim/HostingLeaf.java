package dev.converge.leafsim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.converge.leafsim.inventory.Inventory;
import dev.converge.leafsim.inventory.SimResource;
import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * A hosting service shaped like Laravel Forge: sites unique by domain on a server, Laravel-style
 * 422 validation errors, {@code tags} as the caller's free text, a deploy that may be repeated, and
 * Forge's cursor pagination on the site list.
 */
final class HostingLeaf implements SimulatedLeaf {
    private static final Pattern DOMAIN = Pattern.compile("[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?");
    private final LeafSimParts parts;
    private final Inventory inventory;

    HostingLeaf(LeafSimParts parts) {
        this.parts = parts;
        AtomicLong ids = new AtomicLong(2_000);
        this.inventory = new Inventory(LeafSim.HOSTING, () -> String.valueOf(ids.incrementAndGet()), parts.clock());
    }

    @Override
    public String name() {
        return LeafSim.HOSTING;
    }

    @Override
    public Inventory inventory() {
        return inventory;
    }

    @Override
    public void register(LeafRoutes routes) {
        routes.post("/servers/{server}/sites", "create", this::create);
        routes.get("/servers/{server}/sites", "list", this::list);
        routes.get("/servers/{server}/sites/{id}", "get", this::get);
        routes.delete("/servers/{server}/sites/{id}", "delete", this::delete);
        routes.post("/servers/{server}/sites/{id}/deployment/deploy", "deploy", this::deploy);
    }

    private SimResponse create(Context ctx) {
        Optional<ObjectNode> parsed = JsonBody.parse(ctx, parts.json());
        if (parsed.isEmpty()) {
            return JsonBody.PROBLEMS_PARSING;
        }
        ObjectNode body = parsed.get();
        String server = ctx.pathParam("server");
        String domain = JsonBody.text(body, "domain");
        if (domain == null || !DOMAIN.matcher(domain).matches()) {
            return invalid("domain", "The domain field must be a valid domain.");
        }
        List<String> tags = new ArrayList<>();
        body.path("tags").forEach(tag -> tags.add(tag.asText()));
        String tag = tags.isEmpty() ? null : String.join(",", tags);
        return inventory.insertIfAbsent(server, domain, tag, id -> site(id, server, domain, body, tags))
                .map(created -> SimResponse.of(200, Map.of("site", created.fields())))
                .orElseGet(() -> invalid("domain", "The domain has already been taken."));
    }

    /**
     * Forge's cursor pagination: {@code page[size]} (default 30, at most 200) and an opaque
     * {@code page[cursor]}; {@code meta.next_cursor} and {@code links.next} are null on the last page.
     */
    private SimResponse list(Context ctx) {
        List<Map<String, Object>> sites = inventory.inScope(ctx.pathParam("server")).stream()
                .map(SimResource::fields).toList();
        int size = Math.min(200, Math.max(1, intParam(ctx.queryParam("page[size]"), 30)));
        int from = Math.min(sites.size(), Math.max(0, offset(ctx.queryParam("page[cursor]"))));
        int to = Math.min(sites.size(), from + size);
        String next = to < sites.size() ? cursor(to) : null;
        String prev = from > 0 ? cursor(Math.max(0, from - size)) : null;
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("per_page", size);
        meta.put("next_cursor", next);
        meta.put("prev_cursor", prev);
        Map<String, Object> links = new LinkedHashMap<>();
        links.put("next", next == null ? null : ctx.path() + "?page[size]=" + size + "&page[cursor]=" + next);
        links.put("prev", prev == null ? null : ctx.path() + "?page[size]=" + size + "&page[cursor]=" + prev);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("sites", sites.subList(from, to));
        body.put("meta", meta);
        body.put("links", links);
        return SimResponse.of(200, body);
    }

    private static String cursor(int offset) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(("{\"offset\":" + offset + "}")
                .getBytes(StandardCharsets.UTF_8));
    }

    private static int offset(String cursor) {
        if (cursor == null || cursor.isBlank()) {
            return 0;
        }
        try {
            String decoded = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
            return intParam(decoded.replaceAll("[^0-9]", ""), 0);
        } catch (IllegalArgumentException e) {
            return 0;
        }
    }

    private static int intParam(String value, int fallback) {
        try {
            return value == null || value.isBlank() ? fallback : Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    private SimResponse get(Context ctx) {
        return onServer(ctx).map(site -> SimResponse.of(200, Map.of("site", site.fields())))
                .orElseGet(SimResponse::notFound);
    }

    private SimResponse delete(Context ctx) {
        Optional<SimResource> site = onServer(ctx);
        if (site.isEmpty() || inventory.remove(site.get().id()).isEmpty()) {
            return SimResponse.notFound();
        }
        return SimResponse.of(200, null);
    }

    private SimResponse deploy(Context ctx) {
        Optional<SimResource> site = onServer(ctx);
        if (site.isEmpty()) {
            return SimResponse.notFound();
        }
        return inventory.update(site.get().id(), fields -> {
            fields.put("deployment_status", "deployed");
            fields.put("deployments", ((Number) fields.getOrDefault("deployments", 0)).intValue() + 1);
            return fields;
        }).map(updated -> SimResponse.of(200, Map.of("site", updated.fields()))).orElseGet(SimResponse::notFound);
    }

    private Optional<SimResource> onServer(Context ctx) {
        String server = ctx.pathParam("server");
        return inventory.byId(ctx.pathParam("id")).filter(site -> server.equals(site.scope()));
    }

    private static SimResponse invalid(String field, String message) {
        return SimResponse.of(422, Map.of("message", message, "errors", Map.of(field, List.of(message))));
    }

    private Map<String, Object> site(String id, String server, String domain, ObjectNode body, List<String> tags) {
        Map<String, Object> site = new LinkedHashMap<>();
        site.put("id", Long.parseLong(id));
        site.put("server_id", server);
        site.put("name", domain);
        site.put("domain", domain);
        List<String> aliases = new ArrayList<>();
        body.path("aliases").forEach(alias -> aliases.add(alias.asText()));
        site.put("aliases", List.copyOf(aliases));
        site.put("directory", textOr(body.get("directory"), "/public"));
        site.put("wildcards", false);
        site.put("repository", null);
        site.put("project_type", textOr(body.get("project_type"), "php"));
        site.put("status", "installed");
        site.put("deployment_status", null);
        site.put("deployments", 0);
        site.put("tags", List.copyOf(tags));
        site.put("created_at", parts.clock().instant().toString());
        return site;
    }

    private static String textOr(JsonNode node, String fallback) {
        return node != null && node.isTextual() ? node.asText() : fallback;
    }
}
