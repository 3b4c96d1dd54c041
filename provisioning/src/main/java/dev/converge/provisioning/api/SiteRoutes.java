package dev.converge.provisioning.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.converge.provisioning.access.Scope;
import dev.converge.provisioning.access.Tenant;
import dev.converge.provisioning.limits.Limits;
import dev.converge.provisioning.site.Site;
import dev.converge.provisioning.site.SiteRequest;
import dev.converge.provisioning.site.Sites;
import dev.converge.provisioning.validation.InvalidField;
import dev.converge.provisioning.validation.PublicId;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Sites: request (idempotent, answered with the receipt), show, list, delete. Every lookup is by
 * tenant; a taken subdomain is a 409 the client can act on (R10), with the existing site's link
 * when it is this tenant's, for the same lead: the same request, made before under another key.
 */
final class SiteRoutes {
    static final String COLLECTION = "/v1/sites";
    static final String ONE = "/v1/sites/{id}";
    static final String SUBSCRIPTION = "/v1/sites/{id}/subscription";
    private static final Set<String> FIELDS = Set.of("lead_id", "subdomain", "template", "plan");
    private static final int DELETE_ATTEMPTS = 3;

    private final Sites sites;
    private final ApiParts parts;

    SiteRoutes(Sites sites, ApiParts parts) {
        this.sites = sites;
        this.parts = parts;
    }

    void register(RoutesConfig routes) {
        Authz authz = parts.authz();
        routes.post(COLLECTION, authz.allow(EnumSet.of(Scope.SERVICE), this::create));
        routes.get(COLLECTION, authz.allow(Scope.TENANT_READ, this::list));
        routes.get(ONE, authz.allow(Scope.TENANT_READ, this::get));
        // an agent deletes only through delete_site, with a person's approval; an approver mints, never deletes
        routes.delete(ONE, authz.allow(EnumSet.of(Scope.SERVICE), this::delete));
        // a subscription is the customer's payment decision, taken by the tenant's backend: no agent tool does it
        routes.post(SUBSCRIPTION, authz.allow(EnumSet.of(Scope.SERVICE), this::subscribe));
    }

    private void create(Context ctx) {
        Tenant tenant = Authz.tenant(ctx);
        var key = parts.idempotency().key(ctx, true);
        ObjectNode body = parts.body().read(ctx);
        parts.idempotency().run(ctx, tenant.id(), key, "POST " + COLLECTION, body, () -> request(tenant, body))
                .send(ctx);
    }

    private ApiResponse request(Tenant tenant, ObjectNode body) {
        BodyFields f = new BodyFields(body, FIELDS);
        PublicId.Ref lead = f.requiredRef("lead_id", PublicId.LEAD);
        String subdomain = f.requiredText("subdomain");
        String template = f.optionalText("template");
        String plan = f.optionalText("plan");
        f.check();
        long leadId = sites.leadIdOf(tenant.id(), lead)
                .orElseThrow(() -> new InvalidField("lead_id", "does not name a lead of this tenant"));
        parts.limits().requireQuota(tenant.id(), Limits.Quota.SITES);
        Sites.RequestOutcome outcome = sites.request(tenant.id(), new SiteRequest(leadId, subdomain, template, plan));
        if (outcome instanceof Sites.Created created) {
            return parts.json(202, created.receipt(), Map.of("Location", COLLECTION + "/" + created.site().publicId()));
        }
        Sites.SubdomainTaken taken = (Sites.SubdomainTaken) outcome;
        ApiProblem p = new ApiProblem(ProblemType.SUBDOMAIN_TAKEN, taken.sameLead().isPresent()
                ? "This lead already has a site on " + subdomain + ": follow its link instead of requesting it again."
                : "Another site uses " + subdomain + ". Choose another subdomain.")
                .with("field", "subdomain").with("subdomain", subdomain);
        taken.sameLead().ifPresent(site -> p.with("site_id", site.publicId())
                .with("links", Map.of("site", COLLECTION + "/" + site.publicId())));
        throw p;
    }

    /** The database id of the site the path names; 404 when the tenant has none by that public id. */
    private long site(Context ctx, Tenant tenant) {
        PublicId.Ref ref = PathIds.ref(ctx, PublicId.SITE);
        return sites.idOf(tenant.id(), ref).orElseThrow(() -> PathIds.notFound("site", ref.text()));
    }

    private void get(Context ctx) {
        Tenant tenant = Authz.tenant(ctx);
        long id = site(ctx, tenant);
        var view = sites.view(tenant.id(), id).orElseThrow(() -> PathIds.notFound("site", ctx.pathParam("id")));
        parts.json(200, view, Map.of()).send(ctx);
    }

    private void list(Context ctx) {
        Tenant tenant = Authz.tenant(ctx);
        SitePage.Query q = SitePage.Query.of(ctx);
        long after = q.after() == null ? 0 : sites.idOf(tenant.id(), q.after()).orElseThrow(() ->
                ApiProblem.invalid(ProblemType.INVALID_PARAMETER, "cursor", "is not a cursor this API returned"));
        List<Site> rows = sites.list(tenant.id(), q.state(), after, q.limit() + 1);
        parts.json(200, SitePage.of(rows, q.limit(), sites), Map.of()).send(ctx);
    }

    /**
     * Subscribes the site while its trial runs: 200 with the site, the same on a repeat (the write is
     * conditional on the trial, so repeating changes nothing); 409 once the trial has expired or the
     * site failed or was deleted. No body is read: there is nothing to choose.
     */
    private void subscribe(Context ctx) {
        Tenant tenant = Authz.tenant(ctx);
        long id = site(ctx, tenant);
        Sites.SubscribeOutcome outcome = sites.subscribe(tenant.id(), id)
                .orElseThrow(() -> PathIds.notFound("site", ctx.pathParam("id")));
        if (outcome instanceof Sites.Subscribed subscribed) {
            parts.json(200, sites.view(subscribed.site()), Map.of()).send(ctx);
            return;
        }
        Site site = ((Sites.NotSubscribable) outcome).site();
        String why = switch (site.subscription()) {
            case EXPIRED -> "The trial of this site ended at " + sites.receipt(site).subscriptionDeadline()
                    + " and the site was taken down. Request a new site to start again.";
            default -> "The site is " + site.state().sql() + ": only a site in provisioning or active can be subscribed.";
        };
        throw new ApiProblem(ProblemType.NOT_SUBSCRIBABLE, why).with("site_id", site.publicId())
                .with("state", site.state().sql()).with("subscription", site.subscription().sql());
    }

    /** Starts the teardown; repeating it is harmless and answers the same way. */
    private void delete(Context ctx) {
        Tenant tenant = Authz.tenant(ctx);
        long id = site(ctx, tenant);
        Optional<Site> site = Optional.empty();
        for (int attempt = 1; ; attempt++) {
            try {
                site = sites.delete(tenant.id(), id);
                break;
            } catch (IllegalStateException e) {
                // the site moved while we deleted it (a concurrent delete or the flow finishing): look again
                if (attempt == DELETE_ATTEMPTS) {
                    throw new ApiProblem(ProblemType.SITE_BUSY, "The site kept changing during the delete. Retry it.")
                            .header("Retry-After", "1");
                }
            }
        }
        Site deleted = site.orElseThrow(() -> PathIds.notFound("site", ctx.pathParam("id")));
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Location", COLLECTION + "/" + deleted.publicId());
        parts.json(202, sites.view(deleted), headers).send(ctx);
    }
}
