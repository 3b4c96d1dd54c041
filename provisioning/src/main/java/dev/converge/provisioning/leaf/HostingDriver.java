package dev.converge.provisioning.leaf;

import com.fasterxml.jackson.databind.JsonNode;
import dev.converge.ledger.AmbiguousOutcome;
import dev.converge.ledger.LeafResource;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Sites on a Forge-shaped hosting service. Natural key: the domain on the configured server; tag:
 * the site's first tag (we write exactly one); leaf id: the site id. A 422 whose domain error says
 * the domain is taken is {@code ResourceExists}. Deploy is naturally idempotent, so an ambiguous
 * deploy is safe to repeat.
 */
public final class HostingDriver implements LeafDriver {
    public static final String LEAF = "hosting";
    private static final Pattern DOMAIN = Pattern.compile("[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?");
    private static final Pattern SITE_ID = Pattern.compile("[0-9]{1,18}");
    static final String PAGE_SIZE_PARAM = "page%5Bsize%5D";
    static final String PAGE_CURSOR_PARAM = "page%5Bcursor%5D";
    private static final int PAGE_SIZE = 100;
    private static final int MAX_PAGES = 1_000;

    private final HostingConfig config;
    private final LeafHttp http;

    public HostingDriver(HostingConfig config) {
        this.config = config;
        this.http = new LeafHttp(LEAF, config.http());
    }

    @Override
    public String leaf() {
        return LEAF;
    }

    @Override
    public LeafResource create(String domain, String tag, String idempotencyKey) {
        requireDomain(domain);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("domain", domain);
        body.put("project_type", config.projectType());
        body.put("directory", config.directory());
        body.put("tags", tag == null ? List.of() : List.of(tag));
        LeafReply reply = http.post(sitesPath(), body, Map.of());
        if (!reply.isSuccess()) {
            throw reply.changeFailure(domain, reply.status() == 409 || saysDomainTaken(reply));
        }
        return reply.json().flatMap(node -> site(node.get("site"))).filter(site -> site.naturalKey().equals(domain))
                .orElseThrow(() -> reply.malformedChange("expected {site: {id, name: '" + domain + "'}}"));
    }

    @Override
    public Optional<LeafResource> find(String domain) {
        requireDomain(domain);
        return list().stream().filter(site -> site.naturalKey().equals(domain)).findFirst();
    }

    @Override
    public void delete(String siteId) {
        requireSiteId(siteId);
        LeafReply reply = http.delete(sitesPath() + "/" + siteId);
        if (!reply.isSuccess() && reply.status() != 404) {
            throw reply.readFailure();
        }
    }

    /**
     * Every site on the server. Follows Forge's cursor pagination: while a page's
     * {@code meta.next_cursor} is set, asks for {@code page[cursor]=} that cursor. Sites are read
     * from {@code sites} (Forge's v1 body) or {@code data} (its current JSON:API body).
     */
    @Override
    public List<LeafResource> list() {
        List<LeafResource> all = new ArrayList<>();
        String cursor = null;
        for (int page = 1; page <= MAX_PAGES; page++) {
            String query = "?" + PAGE_SIZE_PARAM + "=" + PAGE_SIZE
                    + (cursor == null ? "" : "&" + PAGE_CURSOR_PARAM + "=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
            LeafReply reply = http.get(sitesPath() + query, LeafHttp.Effect.READS);
            if (!reply.isSuccess()) {
                throw reply.readFailure();
            }
            JsonNode body = reply.json().filter(JsonNode::isObject)
                    .orElseThrow(() -> reply.malformedRead("expected {sites: [...]} or {data: [...]}"));
            JsonNode sites = body.has("sites") ? body.get("sites") : body.get("data");
            if (sites == null || !sites.isArray()) {
                throw reply.malformedRead("expected {sites: [...]} or {data: [...]}");
            }
            for (JsonNode node : sites) {
                all.add(site(node).orElseThrow(() -> reply.malformedRead("a site without id or name")));
            }
            JsonNode next = body.path("meta").path("next_cursor");
            if (!next.isTextual() || next.asText().isBlank()) {
                return all;
            }
            if (next.asText().equals(cursor)) {
                throw reply.malformedRead("the next cursor repeats the current one");
            }
            cursor = next.asText();
        }
        throw new IllegalStateException("more than " + MAX_PAGES + " pages of sites on server " + config.serverId());
    }

    /**
     * Starts a deployment. Success means the leaf accepted it; an unknown outcome is
     * {@link AmbiguousOutcome}, which for a deploy is safe to retry.
     */
    public void deploy(String siteId) {
        requireSiteId(siteId);
        LeafReply reply = http.post(sitesPath() + "/" + siteId + "/deployment/deploy", Map.of(), Map.of());
        if (reply.isSuccess()) {
            reply.json().flatMap(node -> site(node.get("site")))
                    .orElseThrow(() -> reply.malformedChange("expected {site: {...}} for the deployment"));
            return;
        }
        throw reply.changeFailure(siteId, false);
    }

    /** A site in Forge's v1 shape ({@code {id: 2, name, ...}}) or its JSON:API shape ({@code {id: "2", attributes: {name, ...}}}). */
    private Optional<LeafResource> site(JsonNode node) {
        if (node == null || !node.isObject()) {
            return Optional.empty();
        }
        JsonNode fields = node.has("attributes") ? node.get("attributes") : node;
        Optional<String> id = JsonFields.id(node, "id");
        if (id.isEmpty() && node.path("id").isTextual() && SITE_ID.matcher(node.path("id").asText()).matches()) {
            id = Optional.of(node.path("id").asText());
        }
        Optional<String> domain = JsonFields.text(fields, "name");
        if (id.isEmpty() || domain.isEmpty()) {
            return Optional.empty();
        }
        JsonNode tags = fields.get("tags");
        String tag = tags != null && tags.isArray() && !tags.isEmpty() && tags.get(0).isTextual()
                ? tags.get(0).asText() : null;
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("server_id", config.serverId());
        JsonFields.text(fields, "status").ifPresent(status -> data.put("status", status));
        JsonFields.text(fields, "directory").ifPresent(dir -> data.put("directory", dir));
        return Optional.of(new LeafResource(id.get(), domain.get(), tag, data));
    }

    private static boolean saysDomainTaken(LeafReply reply) {
        if (reply.status() != 422) {
            return false;
        }
        JsonNode messages = reply.json().map(node -> node.path("errors").path("domain")).orElse(null);
        if (messages == null || !messages.isArray()) {
            return false;
        }
        for (JsonNode message : messages) {
            if (message.asText().contains("already been taken")) {
                return true;
            }
        }
        return false;
    }

    private String sitesPath() {
        return "/servers/" + config.serverId() + "/sites";
    }

    private static void requireDomain(String domain) {
        if (domain == null || !DOMAIN.matcher(domain).matches()) {
            throw new IllegalArgumentException("not a valid domain: " + domain);
        }
    }

    private static void requireSiteId(String siteId) {
        if (siteId == null || !SITE_ID.matcher(siteId).matches()) {
            throw new IllegalArgumentException("a site id is numeric: " + siteId);
        }
    }
}
