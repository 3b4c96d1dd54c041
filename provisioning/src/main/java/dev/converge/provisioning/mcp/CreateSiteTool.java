package dev.converge.provisioning.mcp;

import dev.converge.ledger.RepetitionSafety;
import dev.converge.provisioning.service.ProvisioningService;
import dev.converge.provisioning.limits.Limits;
import dev.converge.provisioning.site.Receipt;
import dev.converge.provisioning.site.Site;
import dev.converge.provisioning.site.SiteRequest;
import dev.converge.provisioning.site.Sites;
import dev.converge.provisioning.validation.InvalidField;
import dev.converge.provisioning.validation.PublicId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code create_site}: idempotent by constraint. The subdomain's primary key admits one site; a
 * second call for the same subdomain and lead returns that site's receipt, and a subdomain held by
 * anyone else is a tool error saying so (R10), never an exception an agent might retry.
 */
final class CreateSiteTool {
    private final ProvisioningService service;

    private CreateSiteTool(ProvisioningService service) {
        this.service = service;
    }

    static SiteTool declaration(ProvisioningService service) {
        CreateSiteTool t = new CreateSiteTool(service);
        return new SiteTool("create_site", "Create a site",
                "Requests a new site for one of the tenant's leads at https://<subdomain>." + service.config().baseDomain()
                        + " and starts provisioning it (git repository, hosting, database, license, then a welcome "
                        + "email to the lead). Returns the receipt: what was created, where it will be, what to do "
                        + "next and by when. The subdomain is unique: calling again for the same subdomain and lead "
                        + "returns the same site; a subdomain taken by another site is refused.",
                RepetitionSafety.IDEMPOTENT_BY_CONSTRAINT, true,
                new ToolArgs(List.of(
                        ToolArg.id("lead_id", PublicId.LEAD, "The id of the tenant's lead the site is for (lead_ and "
                                + "32 hex digits).").required(),
                        ToolArg.string("subdomain", "3-40 lower-case letters, digits and single hyphens, e.g. ada-shop.")
                                .required().range(3, 40).pattern("[a-z0-9][a-z0-9-]{1,38}[a-z0-9]"),
                        ToolArg.string("template", "Site template (default starter).").range(1, 40),
                        ToolArg.string("plan", "Plan (default trial).").range(1, 40))),
                null, t::handle);
    }

    private ToolResult handle(SiteTool.Call call) {
        PublicId.Ref lead = call.args().ref("lead_id");
        long leadId = service.sites().leadIdOf(call.tenant().id(), lead).orElseThrow(() ->
                new InvalidField("lead_id", "does not name a lead of this tenant"));
        SiteRequest req = new SiteRequest(leadId, call.args().string("subdomain"),
                call.args().string("template"), call.args().string("plan"));
        service.limits().wouldExceed(call.tenant().id(), Limits.Quota.SITES).ifPresent(e -> {
            throw new ToolRefusal("quota_exceeded", "Your organisation holds its limit of " + e.limit() + " sites, so no "
                    + "site was requested.", "Ask a person to delete a site they no longer need, or to ask the service's "
                    + "operators for a higher limit; then call create_site again.").with("limit", e.limit());
        });
        Sites.RequestOutcome outcome = service.sites().request(call.tenant().id(), req);
        if (outcome instanceof Sites.Created created) {
            return receipt("created", created.site(), created.receipt(), "A new site was requested and is being provisioned.");
        }
        Sites.SubdomainTaken taken = (Sites.SubdomainTaken) outcome;
        if (taken.sameLead().isPresent()) {
            Site site = taken.sameLead().get();
            return receipt("already_requested", site, service.sites().receipt(site), "This subdomain was already "
                    + "requested for this lead: this is that site's receipt, and no second site was created.");
        }
        throw new ToolRefusal("subdomain_taken", "The subdomain '" + req.subdomain() + "' is taken by another site, so "
                + "no site was created.", "Choose a different subdomain (check_url with a subdomain tells whether it is "
                + "free) and call create_site with it. Calling again with '" + req.subdomain() + "' will not succeed.")
                .with("subdomain", req.subdomain());
    }

    static ToolResult receipt(String outcome, Site site, Receipt receipt, String note) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("outcome", outcome);
        out.put("note", note);
        out.putAll(ToolResult.map(receipt));
        out.put("agent_next_steps", List.of("Call get_site_status with site_id " + site.publicId()
                + " to follow it; it is live when its state is active."));
        return ToolResult.ok(out);
    }
}
