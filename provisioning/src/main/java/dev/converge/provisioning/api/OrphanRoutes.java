package dev.converge.provisioning.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.Ledger;
import dev.converge.ledger.ResourceType;
import dev.converge.provisioning.site.Site;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /v1/orphans}, for the operator credential only: what the leaves hold that no ledger
 * entry owns, from the last scan ({@link #scan}, on the API server's schedule), never a crawl of
 * every leaf per request. Orphans tagged with one of our sites are listed; untagged ones are a count.
 * A leaf that cannot be listed now is reported as unavailable beside the others, not as a 500.
 */
final class OrphanRoutes {
    static final String PATH = "/v1/orphans";
    private static final Logger log = LoggerFactory.getLogger(OrphanRoutes.class);

    private final Supplier<List<ResourceType>> types;
    private final Ledger ledger;
    private final ApiParts parts;

    private final LongFunction<Optional<String>> publicIdOf;

    /** @param publicIdOf the public id of the site with this database id, of any tenant */
    OrphanRoutes(Supplier<List<ResourceType>> types, Ledger ledger, LongFunction<Optional<String>> publicIdOf,
            ApiParts parts) {
        this.types = types;
        this.ledger = ledger;
        this.publicIdOf = publicIdOf;
        this.parts = parts;
    }

    void register(RoutesConfig routes) {
        routes.get(PATH, parts.authz().operator(this::list));
    }

    record Orphan(@JsonProperty("kind") String kind, @JsonProperty("leaf_id") String leafId,
            @JsonProperty("natural_key") String naturalKey, @JsonProperty("site_id") String siteId) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    record LeafStatus(@JsonProperty("kind") String kind, @JsonProperty("available") boolean available,
            @JsonProperty("orphans") Integer orphans, @JsonProperty("other_count") Integer otherCount,
            @JsonProperty("detail") String detail) {
    }

    record Report(@JsonProperty("items") List<Orphan> items, @JsonProperty("other_count") int otherCount,
            @JsonProperty("complete") boolean complete, @JsonProperty("leaves") List<LeafStatus> leaves,
            @JsonProperty("as_of") String asOf) {
    }

    private volatile Report last;

    /**
     * Answers with the last scan and its time ({@code as_of}); never crawls the leaves on the
     * request's thread. Before the first scan: 503 with Retry-After.
     */
    private void list(Context ctx) {
        Report r = last;
        if (r == null) {
            throw new ApiProblem(ProblemType.SERVICE_UNAVAILABLE, "The first orphan scan has not finished yet.")
                    .header("Retry-After", "10");
        }
        parts.json(200, r, Map.of()).send(ctx);
    }

    /** Lists every leaf's inventory against the ledger and keeps the result; run on a schedule. */
    void scan() {
        List<Orphan> items = new ArrayList<>();
        List<LeafStatus> leaves = new ArrayList<>();
        int others = 0;
        for (ResourceType type : types.get()) {
            List<LeafResource> found;
            try {
                found = ledger.orphans(type);
            } catch (RuntimeException e) {
                log.warn("orphans of {} could not be listed: {}", type.kind(), e.toString());
                leaves.add(new LeafStatus(type.kind(), false, null, null, "The leaf could not be listed right now."));
                continue;
            }
            int mine = 0;
            for (LeafResource r : found) {
                long siteId = siteOf(r.tag());
                if (siteId > 0) {
                    items.add(new Orphan(type.kind(), r.leafId(), r.naturalKey(), publicIdOf.apply(siteId).orElse(null)));
                    mine++;
                }
            }
            others += found.size() - mine;
            leaves.add(new LeafStatus(type.kind(), true, mine, found.size() - mine, null));
        }
        boolean complete = leaves.stream().allMatch(LeafStatus::available);
        last = new Report(List.copyOf(items), others, complete, List.copyOf(leaves), java.time.Instant.now().toString());
    }

    /** The site id in a site's tag of this installation, or 0 if the tag names none ({@link Site#idInTag}). */
    long siteOf(String tag) {
        return Site.idInTag(ledger.tags(), tag);
    }
}
