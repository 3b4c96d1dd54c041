package dev.converge.provisioning.leaf;

import com.fasterxml.jackson.databind.JsonNode;
import dev.converge.ledger.LeafResource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Licenses on Statamic's Sites API ({@code https://statamic.com/api/v1/sites}), where creating twice
 * makes two sites. Natural key: the site's production domain, the first of its {@code domains}
 * (a {@code domain} string is read too); tag: the site's name, which the API stores and returns
 * as given (we put our tag there); leaf id: the site's key. A 2xx without {@code data.key} is
 * ambiguous, exactly as the seed's {@code addLicense} refuses to guess. The API offers no filter
 * by domain, so finding a domain reads the whole list; a {@code links.next}, should a listing
 * carry one, is followed. The idempotency key, derived from the ledger row, goes out as
 * {@code Idempotency-Key}: a server that honours it replays the first answer to a retried create;
 * one that ignores it (Statamic documents none) leaves an ambiguous create to the ledger's lookup.
 */
public final class LicenseDriver implements LeafDriver {
    public static final String LEAF = "license";
    private static final Pattern DOMAIN = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9.:-]{0,251}[A-Za-z0-9])?");
    private static final Pattern KEY = Pattern.compile("[A-Za-z0-9_-]{1,128}");
    private static final int MAX_PAGES = 1_000;
    private static final Pattern IDEMPOTENCY_KEY = Pattern.compile("[\\x21-\\x7e]{1,255}");

    private final LeafHttp http;

    public LicenseDriver(LicenseConfig config) {
        this.http = new LeafHttp(LEAF, config.http());
    }

    @Override
    public String leaf() {
        return LEAF;
    }

    @Override
    public LeafResource create(String domain, String tag, String idempotencyKey) {
        requireDomain(domain);
        if (tag == null || tag.isBlank()) {
            throw new IllegalArgumentException("the license name carries our tag and must not be blank");
        }
        Map<String, String> headers = Map.of();
        if (idempotencyKey != null) {
            if (!IDEMPOTENCY_KEY.matcher(idempotencyKey).matches()) {
                throw new IllegalArgumentException("an idempotency key is 1..255 visible ASCII characters");
            }
            headers = Map.of("Idempotency-Key", idempotencyKey);
        }
        LeafReply reply = http.post("/sites", Map.of("name", tag.trim(), "domain", domain), headers);
        if (!reply.isSuccess()) {
            throw reply.changeFailure(domain, false);
        }
        return reply.json().flatMap(node -> license(node.get("data"))).filter(l -> l.naturalKey().equals(domain))
                .orElseThrow(() -> reply.malformedChange("expected {data: {key, domains: ['" + domain + "', ...]}}"));
    }

    /** The oldest license for the domain; there may be more (see {@link #findAll(String)}). */
    @Override
    public Optional<LeafResource> find(String domain) {
        return findAll(domain).stream().findFirst();
    }

    /** Every license for the domain, oldest first: more than one is a duplicate to reconcile. */
    public List<LeafResource> findAll(String domain) {
        requireDomain(domain);
        return read("/sites").stream().filter(l -> l.naturalKey().equals(domain)).toList();
    }

    @Override
    public void delete(String key) {
        if (key == null || !KEY.matcher(key).matches()) {
            throw new IllegalArgumentException("not a license key: " + key);
        }
        LeafReply reply = http.delete("/sites/" + key);
        if (!reply.isSuccess() && reply.status() != 404) {
            throw reply.readFailure();
        }
    }

    @Override
    public List<LeafResource> list() {
        return read("/sites");
    }

    /** Every site a listing holds, following {@code links.next} while a page sets it (Statamic's list is one page). */
    private List<LeafResource> read(String path) {
        List<LeafResource> licenses = new ArrayList<>();
        LeafReply reply = http.get(path, LeafHttp.Effect.READS);
        for (int page = 1; page <= MAX_PAGES; page++) {
            if (!reply.isSuccess()) {
                throw reply.readFailure();
            }
            LeafReply answered = reply;
            JsonNode body = reply.json().filter(JsonNode::isObject)
                    .orElseThrow(() -> answered.malformedRead("expected {data: [...]}"));
            JsonNode data = body.get("data");
            if (data == null || !data.isArray()) {
                throw reply.malformedRead("expected {data: [...]}");
            }
            for (JsonNode node : data) {
                licenses.add(license(node).orElseThrow(() -> answered.malformedRead("a license without key or domain")));
            }
            JsonNode next = body.path("links").path("next");
            if (!next.isTextual() || next.asText().isBlank()) {
                return licenses;
            }
            reply = http.follow(next.asText());
        }
        throw new IllegalStateException("more than " + MAX_PAGES + " pages of licenses");
    }

    private static Optional<LeafResource> license(JsonNode node) {
        Optional<String> key = JsonFields.text(node, "key");
        Optional<String> domain = productionDomain(node);
        if (key.isEmpty() || domain.isEmpty() || !KEY.matcher(key.get()).matches()) {
            return Optional.empty();
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("key", key.get());
        JsonFields.text(node, "created_at").ifPresent(at -> data.put("created_at", at));
        return Optional.of(new LeafResource(key.get(), domain.get(), JsonFields.optionalText(node, "name"), data));
    }

    /** The first of {@code domains} (the production domain; the rest are testing domains), else {@code domain}. */
    private static Optional<String> productionDomain(JsonNode node) {
        JsonNode domains = node == null ? null : node.get("domains");
        if (domains != null && domains.isArray()) {
            return domains.isEmpty() || !domains.get(0).isTextual() || domains.get(0).asText().isBlank() ? Optional.empty()
                    : Optional.of(domains.get(0).asText());
        }
        return JsonFields.text(node, "domain");
    }

    private static void requireDomain(String domain) {
        if (domain == null || !DOMAIN.matcher(domain).matches()) {
            throw new IllegalArgumentException("not a valid domain: " + domain);
        }
    }
}
