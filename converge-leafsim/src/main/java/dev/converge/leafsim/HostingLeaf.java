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
 * 422 validation errors, a deploy that may be repeated, and Forge's cursor pagination on the site
 * list. Both of Forge's APIs over one inventory: the current one under
 * {@code /orgs/{org}/servers/{server}/sites} (JSON:API {@code data} bodies, no tags: a site's mark is
 * the isolated {@code user} it runs as, which the inventory records as its tag) and the legacy v1
 * under {@code /servers/{server}/sites} ({@code {site}} bodies, {@code tags} as free text).
 */
final class HostingLeaf implements SimulatedLeaf {
    private static final Pattern DOMAIN = Pattern.compile("[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?");
    /** A Linux user name as Forge takes one for an isolated site. */
    private static final Pattern USER = Pattern.compile("[a-z_][a-z0-9_-]{0,31}");
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
        routes.post("/orgs/{org}/servers/{server}/sites", "create", this::createCurrent);
        routes.get("/orgs/{org}/servers/{server}/sites", "list", this::listCurrent);
        routes.delete("/orgs/{org}/servers/{server}/sites/{id}", "delete", this::delete);
        routes.post("/orgs/{org}/servers/{server}/sites/{id}/deployments", "deploy", this::deployCurrent);
    }

    /**
     * The current API's create: {@code type}, {@code domain_mode} and {@code name} (the domain) are
     * required; an isolated site ({@code is_isolated}) runs as {@code isolated_user}, required then.
     * 201 with the site as a JSON:API resource; a taken name is a 422 on {@code name}.
     */
    private SimResponse createCurrent(Context ctx) {
        Optional<ObjectNode> parsed = JsonBody.parse(ctx, parts.json());
        if (parsed.isEmpty()) {
            return JsonBody.PROBLEMS_PARSING;
        }
        ObjectNode body = parsed.get();
        String server = ctx.pathParam("server");
        String domain = JsonBody.text(body, "name");
        if (domain == null || !DOMAIN.matcher(domain).matches()) {
            return invalid("name", "The name field must be a valid domain.");
        }
        if (JsonBody.text(body, "type") == null) {
            return invalid("type", "The type field is required.");
        }
        String mode = JsonBody.text(body, "domain_mode");
        if (!"custom".equals(mode) && !"on-forge".equals(mode)) {
            return invalid("domain_mode", "The selected domain mode is invalid.");
        }
        boolean isolated = body.path("is_isolated").asBoolean(false);
        String user = isolated ? JsonBody.text(body, "isolated_user") : "forge";
        if (user == null || !USER.matcher(user).matches()) {
            return invalid("isolated_user", "The isolated user must be a valid Linux user name.");
        }
        return inventory.insertIfAbsent(server, domain, isolated ? user : null, id -> currentSite(id, server, domain, body, user))
                .map(created -> SimResponse.of(201, Map.of("data", resource(created, ctx.pathParam("org")))))
                .orElseGet(() -> invalid("name", "The name has already been taken."));
    }

    private Map<String, Object> currentSite(String id, String server, String domain, ObjectNode body, String user) {
        Map<String, Object> site = new LinkedHashMap<>();
        site.put("id", Long.parseLong(id));
        site.put("server_id", server);
        site.put("name", domain);
        site.put("status", "installed");
        site.put("url", "http://" + domain);
        site.put("user", user);
        site.put("https", false);
        site.put("web_directory", textOr(body.get("web_directory"), "/public"));
        site.put("root_directory", "/");
        site.put("aliases", List.of());
        site.put("php_version", textOr(body.get("php_version"), "php84"));
        site.put("deployment_status", null);
        site.put("quick_deploy", false);
        site.put("isolated", body.path("is_isolated").asBoolean(false));
        site.put("repository", null);
        site.put("database", null);
        site.put("app_type", textOr(body.get("type"), "php"));
        site.put("deployments", 0);
        String now = parts.clock().instant().toString();
        site.put("created_at", now);
        site.put("updated_at", now);
        return site;
    }

    /** A site as the current API shows it: {@code {id: "7", type: "sites", links: {self}, attributes: {...}}}. */
    private static Map<String, Object> resource(SimResource site, String org) {
        Map<String, Object> attributes = new LinkedHashMap<>(site.fields());
        attributes.remove("id");
        attributes.remove("server_id");
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("id", site.id());
        r.put("type", "sites");
        r.put("links", Map.of("self", Map.of("href", "/orgs/" + org + "/servers/" + site.scope() + "/sites/" + site.id())));
        r.put("attributes", attributes);
        return r;
    }

    private SimResponse listCurrent(Context ctx) {
        String org = ctx.pathParam("org");
        return page(ctx, "data", inventory.inScope(ctx.pathParam("server")).stream().map(site -> resource(site, org)).toList());
    }

    private SimResponse deployCurrent(Context ctx) {
        return deployed(ctx).map(updated -> {
            Map<String, Object> commit = new LinkedHashMap<>();
            commit.put("hash", null);
            commit.put("author", null);
            commit.put("message", null);
            commit.put("branch", null);
            String now = parts.clock().instant().toString();
            Map<String, Object> attributes = new LinkedHashMap<>();
            attributes.put("commit", commit);
            attributes.put("type", "manual");
            attributes.put("status", "queued");
            attributes.put("started_at", null);
            attributes.put("ended_at", null);
            attributes.put("created_at", now);
            attributes.put("updated_at", now);
            Map<String, Object> deployment = new LinkedHashMap<>();
            deployment.put("id", updated.id() + "-" + updated.fields().get("deployments"));
            deployment.put("type", "deployments");
            deployment.put("attributes", attributes);
            return SimResponse.of(200, Map.of("data", deployment));
        }).orElseGet(SimResponse::notFound);
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
        return page(ctx, "sites", inventory.inScope(ctx.pathParam("server")).stream().map(SimResource::fields).toList());
    }

    private SimResponse page(Context ctx, String field, List<Map<String, Object>> sites) {
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
        body.put(field, sites.subList(from, to));
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
        return deployed(ctx).map(updated -> SimResponse.of(200, Map.of("site", updated.fields())))
                .orElseGet(SimResponse::notFound);
    }

    /** The site on the path's server, deployed once more (both APIs count deployments the same way); empty if none. */
    private Optional<SimResource> deployed(Context ctx) {
        return onServer(ctx).flatMap(site -> inventory.update(site.id(), fields -> {
            fields.put("deployment_status", "deployed");
            fields.put("deployments", ((Number) fields.getOrDefault("deployments", 0)).intValue() + 1);
            return fields;
        }));
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
