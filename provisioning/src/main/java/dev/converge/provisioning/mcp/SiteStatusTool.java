package dev.converge.provisioning.mcp;

import dev.converge.ledger.RepetitionSafety;
import dev.converge.provisioning.service.ProvisioningService;
import dev.converge.provisioning.site.SiteView;
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
                new ToolArgs(List.of(ToolArg.integer(SiteTool.SITE_ID, "The site's id.").required())),
                null, call -> {
                    long id = call.args().integer(SiteTool.SITE_ID);
                    SiteView view = service.sites().view(call.tenant().id(), id).orElseThrow(() -> notFound(id));
                    return ToolResult.ok(ToolResult.map(view));
                });
    }

    static ToolRefusal notFound(long siteId) {
        return new ToolRefusal("site_not_found", "This tenant has no site " + siteId + ".",
                "Check the site id (create_site's receipt gives it as site_id).").with(SiteTool.SITE_ID, siteId);
    }
}
