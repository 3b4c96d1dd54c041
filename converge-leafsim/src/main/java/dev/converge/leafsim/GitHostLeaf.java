package dev.converge.leafsim;

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
 * A git host shaped like GitHub's REST API: repositories unique by name within an org, a 422
 * "already_exists" on a second create, the description as the caller's free text (our tag).
 */
final class GitHostLeaf implements SimulatedLeaf {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,100}");
    private final LeafSimParts parts;
    private final Inventory inventory;

    GitHostLeaf(LeafSimParts parts) {
        this.parts = parts;
        AtomicLong ids = new AtomicLong(100_000);
        this.inventory = new Inventory(LeafSim.GITHOST, () -> String.valueOf(ids.incrementAndGet()), parts.clock());
    }

    @Override
    public String name() {
        return LeafSim.GITHOST;
    }

    @Override
    public Inventory inventory() {
        return inventory;
    }

    private static final String DOCS = "https://docs.github.com/rest/repos/repos";

    @Override
    public void register(LeafRoutes routes) {
        routes.post("/orgs/{org}/repos", "create", this::create);
        routes.get("/orgs/{org}/repos", "list", this::list);
        routes.get("/repos/{org}/{name}", "get", this::get);
        routes.delete("/repos/{org}/{name}", "delete", this::delete);
    }

    private SimResponse create(Context ctx) {
        Optional<ObjectNode> body = JsonBody.parse(ctx, parts.json());
        if (body.isEmpty()) {
            return JsonBody.PROBLEMS_PARSING;
        }
        String org = ctx.pathParam("org");
        String name = JsonBody.text(body.get(), "name");
        if (name == null || !NAME.matcher(name).matches()) {
            return validationFailed(name == null ? "missing_field" : "invalid", "name", "name is invalid");
        }
        String description = body.get().path("description").isTextual() ? body.get().get("description").asText() : null;
        boolean isPrivate = body.get().path("private").asBoolean(false);
        return inventory.insertIfAbsent(org, name, description, id -> repo(id, org, name, description, isPrivate))
                .map(created -> SimResponse.of(201, created.fields()))
                .orElseGet(() -> SimResponse.of(422, Map.of("message", "Repository creation failed.",
                        "errors", List.of(Map.of("resource", "Repository", "code", "already_exists", "field", "name",
                                "message", "name already exists on this account")),
                        "documentation_url", DOCS + "#create-an-organization-repository", "status", "422")));
    }

    private SimResponse get(Context ctx) {
        return inventory.byKey(ctx.pathParam("org"), ctx.pathParam("name"))
                .map(found -> SimResponse.of(200, found.fields()))
                .orElseGet(SimResponse::notFound);
    }

    private SimResponse delete(Context ctx) {
        Optional<SimResource> found = inventory.byKey(ctx.pathParam("org"), ctx.pathParam("name"));
        if (found.isEmpty() || inventory.remove(found.get().id()).isEmpty()) {
            return SimResponse.notFound();
        }
        return SimResponse.of(204, null);
    }

    /** GitHub-style paging: {@code per_page} (default 30, at most 100) and {@code page} from 1. */
    private SimResponse list(Context ctx) {
        int perPage = Math.min(100, Math.max(1, intParam(ctx, "per_page", 30)));
        int page = Math.max(1, intParam(ctx, "page", 1));
        List<SimResource> all = inventory.inScope(ctx.pathParam("org"));
        int from = Math.min(all.size(), (page - 1) * perPage);
        int to = Math.min(all.size(), from + perPage);
        SimResponse response = SimResponse.of(200, all.subList(from, to).stream().map(SimResource::fields).toList());
        String page0 = ctx.scheme() + "://" + ctx.host() + ctx.path() + "?per_page=" + perPage + "&page=";
        List<String> links = new ArrayList<>();
        if (to < all.size()) {
            int last = (all.size() + perPage - 1) / perPage;
            links.add("<" + page0 + (page + 1) + ">; rel=\"next\"");
            links.add("<" + page0 + last + ">; rel=\"last\"");
        }
        if (page > 1) {
            links.add("<" + page0 + (page - 1) + ">; rel=\"prev\"");
            links.add("<" + page0 + 1 + ">; rel=\"first\"");
        }
        if (!links.isEmpty()) {
            response = response.withHeader("Link", String.join(", ", links));
        }
        return response;
    }

    private static int intParam(Context ctx, String name, int fallback) {
        try {
            String value = ctx.queryParam(name);
            return value == null ? fallback : Integer.parseInt(value);
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    private static SimResponse validationFailed(String code, String field, String message) {
        return SimResponse.of(422, Map.of("message", "Validation Failed",
                "errors", List.of(Map.of("resource", "Repository", "code", code, "field", field, "message", message)),
                "documentation_url", DOCS + "#create-an-organization-repository", "status", "422"));
    }

    private Map<String, Object> repo(String id, String org, String name, String description, boolean isPrivate) {
        Map<String, Object> repo = new LinkedHashMap<>();
        repo.put("id", Long.parseLong(id));
        repo.put("node_id", "R_" + id);
        repo.put("name", name);
        repo.put("full_name", org + "/" + name);
        repo.put("description", description);
        repo.put("private", isPrivate);
        repo.put("owner", Map.of("login", org, "type", "Organization"));
        repo.put("html_url", "https://githost.test/" + org + "/" + name);
        repo.put("clone_url", "https://githost.test/" + org + "/" + name + ".git");
        repo.put("default_branch", "main");
        repo.put("created_at", parts.clock().instant().toString());
        return repo;
    }
}
