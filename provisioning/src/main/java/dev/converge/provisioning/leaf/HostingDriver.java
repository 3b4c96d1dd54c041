package dev.converge.provisioning.leaf;

import com.fasterxml.jackson.databind.JsonNode;
import dev.converge.ledger.AmbiguousOutcome;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.ResourceTags;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Sites on Laravel Forge. Natural key: the domain on the configured server; leaf id: the site id.
 * A 422 whose {@code name} or {@code domain} error says it is taken is {@code ResourceExists}.
 * Deploy is naturally idempotent, so an ambiguous deploy is safe to repeat.
 *
 * <p>Two APIs. The current one ({@link HostingConfig#currentApi()}: {@code /orgs/{org}/servers/{server}/sites},
 * JSON:API {@code data} bodies) keeps no tags or other free text on a site, so our tag goes where it
 * keeps something we choose and returns it: each site is isolated under its own Linux user,
 * {@link #userFor(String) named from our tag} so that the tag reads back from the site's {@code user}
 * (a user that is not one of ours reads as itself, never as our tag). The legacy v1 API
 * ({@code /servers/{server}/sites}, {@code {site}} bodies) is spoken when no organization is
 * configured, with the tag in {@code tags}.
 */
public final class HostingDriver implements LeafDriver {
    public static final String LEAF = "hosting";
    private static final Pattern DOMAIN = Pattern.compile("[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?");
    private static final Pattern SITE_ID = Pattern.compile("[0-9]{1,18}");
    static final String PAGE_SIZE_PARAM = "page%5Bsize%5D";
    static final String PAGE_CURSOR_PARAM = "page%5Bcursor%5D";
    private static final int PAGE_SIZE = 100;
    private static final int MAX_PAGES = 1_000;

    private static final Pattern SUBJECT_IN_USER = Pattern.compile("[a-z0-9-]{1,21}");

    private final HostingConfig config;
    private final LeafHttp http;
    private final ResourceTags tags;
    private final String userPrefix;

    /** For the default installation's tags. */
    public HostingDriver(HostingConfig config) {
        this(config, ResourceTags.defaults());
    }

    /** @param tags how this installation tags its resources: the current API's site users are named from them */
    public HostingDriver(HostingConfig config, ResourceTags tags) {
        this.config = config;
        this.http = new LeafHttp(LEAF, config.http());
        this.tags = tags;
        this.userPrefix = userPrefix(tags);
    }

    @Override
    public String leaf() {
        return LEAF;
    }

    @Override
    public LeafResource create(String domain, String tag, String idempotencyKey) {
        requireDomain(domain);
        if (config.currentApi()) {
            return createCurrent(domain, tag);
        }
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

    /** The current API's create: a custom-domain site isolated under the user named from our tag. */
    private LeafResource createCurrent(String domain, String tag) {
        if (tag == null || tag.isBlank()) {
            throw new IllegalArgumentException("a site's isolated user carries our tag, which must not be blank");
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", config.projectType());
        body.put("domain_mode", "custom");
        body.put("name", domain);
        body.put("web_directory", config.directory());
        body.put("is_isolated", true);
        body.put("isolated_user", userFor(tag));
        LeafReply reply = http.post(sitesPath(), body, Map.of());
        if (!reply.isSuccess()) {
            throw reply.changeFailure(domain, reply.status() == 409 || saysDomainTaken(reply));
        }
        return reply.json().flatMap(node -> site(node.get("data"))).filter(site -> site.naturalKey().equals(domain))
                .orElseThrow(() -> reply.malformedChange("expected {data: {id, attributes: {name: '" + domain + "'}}}"));
    }

    /**
     * The Linux user a site of ours is isolated under, named from our tag so that it can be read
     * back: {@code cv}, the first 8 hex digits of the SHA-256 of this installation's tag prefix, a
     * {@code -}, and the tag's subject ({@code cv1a2b3c4d-site-42}). At most 32 characters, Linux's
     * limit, so a subject has at most 21 (lower-case letters, digits and {@code -}).
     */
    public String userFor(String tag) {
        String subject = tags.subjectOf(tag).orElseThrow(() -> new IllegalArgumentException(
                "not a tag of installation " + tags.installation() + ": " + tag));
        if (!SUBJECT_IN_USER.matcher(subject).matches()) {
            throw new IllegalArgumentException("a hosting site's subject must be 1 to 21 of [a-z0-9-]: " + subject);
        }
        return userPrefix + subject;
    }

    /** Our tag, read back from a site's isolated user; the user as found when it is not one of ours. */
    String tagOfUser(String user) {
        return tagOfUser(tags, user);
    }

    /**
     * Our tag, read back from the isolated user of a site made through Forge's current API, for
     * whoever reads a hosting inventory (the orphan report, a checker); the user itself when it is
     * not one of this installation's.
     */
    public static String tagOfUser(ResourceTags tags, String user) {
        String prefix = userPrefix(tags);
        if (user != null && user.startsWith(prefix) && SUBJECT_IN_USER.matcher(user.substring(prefix.length())).matches()) {
            return tags.tagFor(user.substring(prefix.length()));
        }
        return user;
    }

    private static String userPrefix(ResourceTags tags) {
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(tags.prefix().getBytes(StandardCharsets.UTF_8));
            return "cv" + java.util.HexFormat.of().formatHex(digest).substring(0, 8) + "-";
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always available", e);
        }
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
        if (config.currentApi()) {
            LeafReply reply = http.post(sitesPath() + "/" + siteId + "/deployments", Map.of(), Map.of());
            if (reply.isSuccess()) {
                reply.json().map(node -> node.get("data")).filter(d -> d != null && d.isObject()
                        && "deployments".equals(d.path("type").asText()))
                        .orElseThrow(() -> reply.malformedChange("expected {data: {type: 'deployments', ...}}"));
                return;
            }
            throw reply.changeFailure(siteId, false);
        }
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
        // the current API keeps our mark as the site's isolated user; v1 as its first tag
        JsonNode tags = fields.get("tags");
        String tag = config.currentApi() ? tagOfUser(JsonFields.optionalText(fields, "user"))
                : tags != null && tags.isArray() && !tags.isEmpty() && tags.get(0).isTextual() ? tags.get(0).asText() : null;
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
        for (String field : List.of("domain", "name")) { // v1 names the field domain, the current API name
            JsonNode messages = reply.json().map(node -> node.path("errors").path(field)).orElse(null);
            if (messages == null || !messages.isArray()) {
                continue;
            }
            for (JsonNode message : messages) {
                if (message.asText().contains("already been taken")) {
                    return true;
                }
            }
        }
        return false;
    }

    private String sitesPath() {
        return (config.currentApi() ? "/orgs/" + config.org() : "") + "/servers/" + config.serverId() + "/sites";
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
