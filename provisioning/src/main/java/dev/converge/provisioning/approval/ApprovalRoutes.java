package dev.converge.provisioning.approval;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.converge.provisioning.access.Scope;
import dev.converge.provisioning.access.Tenant;
import dev.converge.provisioning.api.ApiContext;
import dev.converge.provisioning.api.ApiExtension;
import dev.converge.provisioning.api.ProblemType;
import dev.converge.provisioning.limits.Limits;
import dev.converge.provisioning.validation.PublicId;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The HTTP paths by which a person permits what an agent may not do on its own:
 * {@code POST /v1/sites/{id}/delete-approvals} mints a one-time approval for {@code delete_site},
 * {@code POST /v1/sites/{id}/welcome-resends} permits one more welcome email. Only a token of scope
 * {@code approver} may: a person's, never the agent's.
 * They are API routes, never MCP tools: an agent connected to {@code /mcp} has no way to mint.
 * Expired approvals are deleted by the service's recurring job ({@code pv.purge-expired}).
 */
public final class ApprovalRoutes implements ApiExtension {
    private final Duration ttl;

    public ApprovalRoutes() {
        this(Approvals.DEFAULT_TTL);
    }

    public ApprovalRoutes(Duration ttl) {
        this.ttl = ttl;
    }

    @Override
    public void configure(JavalinConfig config, ApiContext context) {
        Approvals approvals = new Approvals(context.service().store(), ttl);
        ApprovalDesk desk = new ApprovalDesk(context.service(), approvals);
        config.routes.post("/v1/sites/{id}/delete-approvals", ctx -> answer(ctx, context, tenant -> {
            long siteId = siteId(ctx, context, tenant);
            if (siteId < 0) {
                return siteId == NOT_FOUND ? notFound(ctx) : invalidId();
            }
            Duration asked = ttl(ctx, context);
            if (asked == null) {
                Reply r = problem(ProblemType.VALIDATION_FAILED, "ttl_seconds must be an integer from 1 to 86400");
                r.body().put("field", "ttl_seconds");
                return r;
            }
            var full = context.service().limits().wouldExceed(tenant.id(), Limits.Quota.OPEN_APPROVALS);
            if (full.isPresent()) {
                ctx.header("Retry-After", "60");
                return problem(ProblemType.QUOTA_EXCEEDED, "This tenant holds its limit of " + full.get().limit()
                        + " open approvals. Let some be used or expire first.");
            }
            ApprovalDesk d = asked.equals(ttl) ? desk
                    : new ApprovalDesk(context.service(), new Approvals(context.service().store(), asked));
            return render(d.approveDelete(tenant.id(), siteId));
        }));
        config.routes.post("/v1/sites/{id}/welcome-resends", ctx -> answer(ctx, context, tenant -> {
            long siteId = siteId(ctx, context, tenant);
            return siteId < 0 ? (siteId == NOT_FOUND ? notFound(ctx) : invalidId())
                    : render(desk.permitWelcome(tenant.id(), siteId));
        }));
    }

    private static final long MALFORMED = -1;
    private static final long NOT_FOUND = -2;

    private record Reply(int status, Map<String, Object> body) {
    }

    private static void answer(Context ctx, ApiContext context, Function<Tenant, Reply> action)
            throws JsonProcessingException {
        // only a person's approver token mints: an agent's token gets a 403 naming the scope it lacks
        Tenant tenant = context.authz().require(ctx, EnumSet.of(Scope.APPROVER)).tenant();
        Reply reply = action.apply(tenant);
        ctx.status(reply.status()).contentType(reply.status() >= 400 ? "application/problem+json" : "application/json")
                .result(context.json().writeValueAsString(reply.body()));
    }

    /** The approval's lifetime: the body's optional {@code ttl_seconds}, else the default; null if invalid. */
    private Duration ttl(Context ctx, ApiContext context) {
        String body = ctx.body();
        if (body == null || body.isBlank()) {
            return ttl;
        }
        try {
            var node = context.json().readTree(body);
            if (!node.isObject() || node.size() > 1 || (node.size() == 1 && !node.has("ttl_seconds"))) {
                return null;
            }
            if (!node.has("ttl_seconds")) {
                return ttl;
            }
            var v = node.get("ttl_seconds");
            return v.canConvertToInt() && v.isIntegralNumber() && v.asInt() >= 1 && v.asInt() <= 86_400
                    ? Duration.ofSeconds(v.asInt()) : null;
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    /** The database id of the site the path names; {@link #MALFORMED} or {@link #NOT_FOUND} if none. */
    private static long siteId(Context ctx, ApiContext context, Tenant tenant) {
        return PublicId.SITE.parse(ctx.pathParam("id"))
                .map(ref -> context.service().sites().idOf(tenant.id(), ref).orElse(NOT_FOUND)).orElse(MALFORMED);
    }

    private static Reply invalidId() {
        Reply r = problem(ProblemType.INVALID_PARAMETER, "id " + PublicId.SITE.expected());
        r.body().put("field", "id");
        return r;
    }

    private static Reply notFound(Context ctx) {
        return problem(ProblemType.NOT_FOUND, "This tenant has no site " + ctx.pathParam("id") + ".");
    }

    private static Reply render(ApprovalDesk.Outcome outcome) {
        if (outcome instanceof ApprovalDesk.DeleteApproved d) {
            Map<String, Object> b = new LinkedHashMap<>();
            b.put("approval_token", d.approval().token());
            b.put("site_id", d.site().publicId());
            b.put("action", d.approval().action().sql());
            b.put("expires_at", d.approval().expiresAt().toString());
            b.put("single_use", true);
            b.put("what_to_do", "Give this token to the agent that asked to delete site " + d.site().publicId()
                    + " (its delete_site tool takes it as approval_token). It works once, until "
                    + d.approval().expiresAt() + ", and is shown only now.");
            return new Reply(201, b);
        }
        if (outcome instanceof ApprovalDesk.WelcomePermitted w) {
            Map<String, Object> b = new LinkedHashMap<>();
            b.put("site_id", w.site().publicId());
            b.put("permitted", "one more welcome email");
            b.put("what_to_do", "The agent may now call send_welcome_email for site " + w.site().publicId()
                    + "; this permission sends at most one email.");
            return new Reply(201, b);
        }
        if (outcome instanceof ApprovalDesk.NoSuchSite n) {
            return problem(ProblemType.NOT_FOUND, "This tenant has no site " + n.siteId() + ".");
        }
        ApprovalDesk.SiteGone g = (ApprovalDesk.SiteGone) outcome;
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("type", "about:blank");
        b.put("title", "Conflict");
        b.put("status", 409);
        b.put("detail", "Site " + g.site().id() + " is " + g.site().state().sql() + ": there is nothing left to permit.");
        return new Reply(409, b);
    }

    /** An RFC 9457 problem of the API's own types, like every other error the API answers. */
    private static Reply problem(ProblemType type, String detail) {
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("type", type.uri());
        b.put("title", type.title());
        b.put("status", type.status());
        b.put("detail", detail);
        return new Reply(type.status(), b);
    }
}
