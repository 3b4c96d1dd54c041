package dev.converge.leafsim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.converge.leafsim.inventory.Inventory;
import dev.converge.leafsim.inventory.SimResource;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * A hosting service shaped like Laravel Forge: sites unique by domain on a server, Laravel-style
 * 422 validation errors, {@code tags} as the caller's free text, and a deploy that may be repeated.
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

    private SimResponse list(Context ctx) {
        List<Map<String, Object>> sites = inventory.inScope(ctx.pathParam("server")).stream()
                .map(SimResource::fields).toList();
        return SimResponse.of(200, Map.of("sites", sites));
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
        site.put("aliases", List.of());
        site.put("directory", textOr(body.get("directory"), "/public"));
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
