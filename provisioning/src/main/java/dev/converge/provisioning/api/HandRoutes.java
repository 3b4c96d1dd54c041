package dev.converge.provisioning.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.converge.flow.ManualAction;
import dev.converge.provisioning.access.Credential;
import dev.converge.provisioning.access.Scope;
import dev.converge.provisioning.hand.OperatorActions.Outcome;
import dev.converge.provisioning.hand.OperatorActions;
import dev.converge.provisioning.site.Sites;
import dev.converge.provisioning.validation.PublicId;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.Supplier;

/**
 * A person's hand when automation stops. For the operator token: retry a job that failed for good
 * or a flow that needs attention, cancel a job that is waiting, settle a ledger entry or a token
 * the machine could not decide, and list what was done. For a tenant's approver: retry one of its sites that needs attention.
 * Every request names why ({@code reason}, required); who is the token. The answer says whether
 * it changed anything: of two identical requests at once, one applies and the other is told so.
 */
final class HandRoutes {
    static final String JOB_RETRIES = "/v1/ops/jobs/{id}/retries";
    static final String JOB_CANCELLATIONS = "/v1/ops/jobs/{id}/cancellations";
    static final String FLOW_RETRIES = "/v1/ops/flows/{id}/retries";
    static final String ENTRY_SETTLEMENTS = "/v1/ops/ledger-entries/{id}/settlements";
    static final String TOKEN_SETTLEMENTS = "/v1/ops/tokens/{id}/settlements";
    static final String ACTIONS = "/v1/ops/actions";
    static final String SITE_RETRIES = "/v1/sites/{id}/retries";

    private final OperatorActions hand;
    private final Sites sites;
    private final ApiParts parts;

    HandRoutes(OperatorActions hand, Sites sites, ApiParts parts) {
        this.hand = hand;
        this.sites = sites;
        this.parts = parts;
    }

    void register(RoutesConfig routes) {
        Authz authz = parts.authz();
        routes.post(JOB_RETRIES, authz.operator(ctx -> act(ctx, "job",
                body -> () -> hand.retryJob(actor(ctx), PathIds.id(ctx), reason(body)))));
        routes.post(JOB_CANCELLATIONS, authz.operator(ctx -> act(ctx, "job",
                body -> () -> hand.cancelJob(actor(ctx), PathIds.id(ctx), reason(body)))));
        routes.post(FLOW_RETRIES, authz.operator(ctx -> act(ctx, "flow",
                body -> () -> hand.retryFlow(actor(ctx), PathIds.id(ctx), reason(body)))));
        routes.post(ENTRY_SETTLEMENTS, authz.operator(ctx -> act(ctx, "ledger entry", body -> {
            boolean exists = flag(body, "exists");
            String leafId = exists ? text(body, "leaf_id", 500) : null;
            if (!exists && body.hasNonNull("leaf_id")) {
                throw ApiProblem.invalid(ProblemType.VALIDATION_FAILED, "leaf_id", "is given only when exists is true");
            }
            return () -> hand.settleEntry(actor(ctx), PathIds.id(ctx), leafId, reason(body));
        })));
        routes.post(TOKEN_SETTLEMENTS, authz.operator(ctx -> act(ctx, "token", body -> {
            boolean used = flag(body, "used");
            return () -> hand.settleToken(actor(ctx), PathIds.id(ctx), used, reason(body));
        })));
        routes.get(ACTIONS, authz.operator(this::actions));
        routes.post(SITE_RETRIES, authz.allow(EnumSet.of(Scope.APPROVER), ctx -> act(ctx, "site",
                body -> () -> hand.retrySite(actor(ctx), Authz.tenant(ctx).id(), site(ctx), reason(body)))));
    }

    private interface Action {
        Supplier<Outcome> read(ObjectNode body);
    }

    /** The database id of the tenant's site the path names; 404 when it has none by that public id. */
    private long site(Context ctx) {
        PublicId.Ref ref = PathIds.ref(ctx, PublicId.SITE);
        return sites.idOf(Authz.tenant(ctx).id(), ref).orElseThrow(() -> PathIds.notFound("site", ref.text()));
    }

    private void act(Context ctx, String what, Action action) {
        String id = ctx.pathParam("id");
        if (what.equals("site")) {
            PathIds.ref(ctx, PublicId.SITE);
        } else {
            PathIds.id(ctx); // a job, flow, entry or token: the engine's own ids
        }
        ObjectNode body = parts.body().read(ctx);
        Supplier<Outcome> run = action.read(body);
        Outcome o;
        try {
            o = run.get();
        } catch (NoSuchElementException e) {
            throw PathIds.notFound(what, id);
        } catch (IllegalArgumentException e) {
            throw new ApiProblem(ProblemType.VALIDATION_FAILED, e.getMessage());
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("applied", o.applied());
        out.put("detail", o.detail());
        out.put("site_id", o.siteId());
        parts.json(200, out, Map.of()).send(ctx);
    }

    private void actions(Context ctx) {
        String site = ctx.queryParam("site_id");
        var list = site == null ? hand.recent(100) : hand.forSite(PublicId.SITE.parse(site).orElseThrow(() ->
                ApiProblem.invalid(ProblemType.INVALID_PARAMETER, "site_id", PublicId.SITE.expected())));
        parts.json(200, Map.of("items", list.stream().map(a -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", a.id());
            m.put("site_id", a.siteId());
            m.put("actor", a.actor());
            m.put("action", a.action());
            m.put("target", a.target());
            m.put("reason", a.reason());
            m.put("applied", a.applied());
            m.put("outcome", a.outcome());
            m.put("at", a.at().toString());
            return m;
        }).toList()), Map.of()).send(ctx);
    }

    /** Who acted, as the history shows it: the scope and id of the token (never its secret). */
    private static String actor(Context ctx) {
        Credential c = Authz.credential(ctx);
        return c.scope().sql() + ":token-" + c.tokenId() + c.tenantIfAny().map(t -> "@tenant-" + t.id()).orElse("");
    }

    private static String reason(JsonNode body) {
        return text(body, "reason", ManualAction.MAX_REASON);
    }

    private static String text(JsonNode body, String field, int max) {
        JsonNode v = body.get(field);
        if (v == null || !v.isTextual() || v.asText().isBlank() || v.asText().length() > max) {
            throw ApiProblem.invalid(ProblemType.VALIDATION_FAILED, field, "is required: a string of 1-" + max
                    + " characters");
        }
        return v.asText().strip();
    }

    private static boolean flag(JsonNode body, String field) {
        JsonNode v = body.get(field);
        if (v == null || !v.isBoolean()) {
            throw ApiProblem.invalid(ProblemType.VALIDATION_FAILED, field, "is required: true or false");
        }
        return v.asBoolean();
    }
}
