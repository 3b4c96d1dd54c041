package dev.converge.provisioning.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.ResourceType;
import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.site.Site;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an operator may do from the dashboard: delete an orphan of ours at its leaf. The page asks
 * for confirmation first; here the orphan is checked again against the leaf's inventory and the
 * ledger now (the scan the page showed may be minutes old: a flow may have claimed it since), and
 * only a resource tagged with one of this store's sites is deleted, as {@code reconcile --delete}
 * does. Each deletion is logged with the operator token's id (never the token). The token travels
 * in the Authorization header, never in a cookie, so another site's page cannot send this request
 * with the operator's authority (no CSRF).
 */
final class DashboardActions {
    static final String DELETE_ORPHAN = DashboardRoutes.API + "/orphans/delete";
    private static final Logger log = LoggerFactory.getLogger(DashboardActions.class);

    private final Provisioning service;
    private final ObjectMapper json;

    DashboardActions(Provisioning service, ObjectMapper json) {
        this.service = service;
        this.json = json;
    }

    void register(RoutesConfig routes, Authz authz) {
        routes.post(DELETE_ORPHAN, authz.operator(this::deleteOrphan));
    }

    private void deleteOrphan(Context ctx) {
        JsonNode body = body(ctx);
        String kind = text(body, "kind");
        String leafId = text(body, "leaf_id");
        Optional<ResourceType> type = service.resources().all().stream().filter(t -> t.kind().equals(kind)).findFirst();
        if (type.isEmpty()) {
            throw ApiProblem.invalid(ProblemType.VALIDATION_FAILED, "kind", "is not a resource type of this service");
        }
        List<LeafResource> orphans;
        try {
            orphans = service.engine().ledger().orphans(type.get());
        } catch (RuntimeException e) {
            log.warn("orphans of {} could not be listed for a deletion: {}", kind, e.toString());
            throw new ApiProblem(ProblemType.SERVICE_UNAVAILABLE, "The leaf could not be listed right now.")
                    .header("Retry-After", "10");
        }
        LeafResource orphan = orphans.stream().filter(r -> leafId.equals(r.leafId())).findFirst()
                .orElseThrow(() -> new ApiProblem(ProblemType.NOT_FOUND, "No orphan " + kind + " " + leafId
                        + " now: a ledger entry owns it, or it is gone."));
        long siteId = Site.idInTag(service.resources().tags(), orphan.tag());
        if (siteId <= 0 || !siteExists(siteId)) {
            throw ApiProblem.invalid(ProblemType.VALIDATION_FAILED, "leaf_id",
                    "is not tagged with one of this service's sites; it is never deleted from here");
        }
        try {
            type.get().delete(orphan);
        } catch (RuntimeException e) {
            log.warn("deleting orphan {} {} failed: {}", kind, leafId, e.toString());
            throw new ApiProblem(ProblemType.SERVICE_UNAVAILABLE, "The leaf did not delete it; try again.")
                    .header("Retry-After", "10");
        }
        log.info("orphan {} {} (natural key {}, site {}) deleted at the leaf by operator token {}", kind, leafId,
                orphan.naturalKey(), siteId, Authz.credential(ctx).tokenId());
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("deleted", true);
        out.put("kind", kind);
        out.put("leaf_id", leafId);
        out.put("natural_key", orphan.naturalKey());
        out.put("site_id", siteId);
        ctx.json(out);
    }

    private JsonNode body(Context ctx) {
        try {
            JsonNode n = json.readTree(ctx.body());
            if (n == null || !n.isObject()) {
                throw new ApiProblem(ProblemType.INVALID_BODY, "Send a JSON object with kind and leaf_id.");
            }
            return n;
        } catch (JsonProcessingException e) {
            throw new ApiProblem(ProblemType.MALFORMED_JSON, "The body is not JSON.");
        }
    }

    private static String text(JsonNode body, String field) {
        JsonNode v = body.get(field);
        if (v == null || !v.isTextual() || v.asText().isBlank()) {
            throw ApiProblem.invalid(ProblemType.VALIDATION_FAILED, field, "is required");
        }
        return v.asText();
    }

    private boolean siteExists(long id) {
        return service.store().withConnection(c -> {
            try (var ps = c.prepareStatement("SELECT COUNT(*) FROM pv_site WHERE id = ?")) {
                ps.setLong(1, id);
                try (var rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1) > 0;
                }
            }
        });
    }
}
