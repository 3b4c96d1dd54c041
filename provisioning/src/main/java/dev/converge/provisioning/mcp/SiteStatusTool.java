package dev.converge.provisioning.mcp;

import dev.converge.ledger.RepetitionSafety;
import dev.converge.provisioning.service.ProvisioningService;
import dev.converge.provisioning.site.Site;
import dev.converge.provisioning.site.SiteView;
import dev.converge.provisioning.validation.PublicId;
import java.util.List;

/** {@code get_site_status}: read-only. A site's state, its resources as the ledger holds them, its history and receipt. */
final class SiteStatusTool {
    private SiteStatusTool() {
    }

    static SiteTool declaration(ProvisioningService service) {
        return new SiteTool("get_site_status", "Get a site's status",
                "Shows a site of this tenant: its state (provisioning, active, failed, needs_attention, deleting, "
                        + "deleted), its resources, its history and its receipt; the receipt says whether it is on trial, "
                        + "subscribed or expired, and the trial's deadline and whole days left (trial_days_left).",
                RepetitionSafety.READ_ONLY, false,
                new ToolArgs(List.of(SiteTool.siteIdArg())),
                null, call -> {
                    PublicId.Ref ref = call.args().ref(SiteTool.SITE_ID);
                    SiteView view = service.sites().idOf(call.tenant().id(), ref)
                            .flatMap(id -> service.sites().view(call.tenant().id(), id)).orElseThrow(() -> notFound(ref));
                    return ToolResult.ok(ToolResult.map(view));
                });
    }

    static ToolRefusal notFound(PublicId.Ref site) {
        return new ToolRefusal("site_not_found", "This tenant has no site " + site.text() + ".",
                "Check the site id (create_site's receipt gives it as site_id).").with(SiteTool.SITE_ID, site.text());
    }

    /** The tenant's site a call names, or the refusal an agent can act on. */
    static Site site(ProvisioningService service, SiteTool.Call call) {
        PublicId.Ref ref = call.args().ref(SiteTool.SITE_ID);
        return service.sites().idOf(call.tenant().id(), ref).flatMap(id -> service.sites().get(call.tenant().id(), id))
                .orElseThrow(() -> notFound(ref));
    }
}
