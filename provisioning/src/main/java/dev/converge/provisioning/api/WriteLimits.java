package dev.converge.provisioning.api;

import dev.converge.provisioning.access.Credential;
import dev.converge.provisioning.limits.Limits;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.util.OptionalLong;

/**
 * The API's side of {@link Limits}: a tenant's writes (every method but GET and HEAD) are counted
 * against its rate, and creating a site, a lead or an approval against its quota. Both refusals are
 * 429 problems with {@code Retry-After}; neither is stored for an Idempotency-Key, so the same
 * request may be sent again later.
 */
public final class WriteLimits {
    private final Limits limits;

    public WriteLimits(Limits limits) {
        this.limits = limits;
    }

    /** A before-handler, after authentication. */
    void rate(Context ctx) {
        if (ctx.method() == HandlerType.GET || ctx.method() == HandlerType.HEAD) {
            return;
        }
        Credential c = Authz.credential(ctx);
        if (c.tenant() != null) {
            requireRate(c.tenant().id());
        }
    }

    /** Takes one write from the tenant's rate, or throws the 429. */
    void requireRate(long tenantId) {
        OptionalLong wait = limits.tryWrite(tenantId);
        if (wait.isPresent()) {
            throw new ApiProblem(ProblemType.RATE_LIMITED, "This tenant sent more writes than its rate allows ("
                    + limits.of(tenantId).writesPerMinute() + " a minute). Retry after " + wait.getAsLong() + " s.")
                    .header("Retry-After", Long.toString(wait.getAsLong()));
        }
    }

    /** Throws the 429 if one more of {@code quota} would exceed the tenant's quota. */
    void requireQuota(long tenantId, Limits.Quota quota) {
        limits.wouldExceed(tenantId, quota).ifPresent(e -> {
            throw new ApiProblem(ProblemType.QUOTA_EXCEEDED, "This tenant holds its limit of " + e.limit() + " "
                    + e.quota().words() + ". Remove some, or ask the service's operators for a higher limit.")
                    .with("quota", e.quota().name().toLowerCase(java.util.Locale.ROOT)).with("limit", e.limit())
                    .header("Retry-After", "60");
        });
    }

    /** For servlets outside Javalin's routing: the seconds to wait, if the tenant's rate is used up. */
    public OptionalLong tryWrite(long tenantId) {
        return limits.tryWrite(tenantId);
    }
}
