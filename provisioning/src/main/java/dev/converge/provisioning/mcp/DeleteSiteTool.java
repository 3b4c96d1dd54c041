package dev.converge.provisioning.mcp;

import dev.converge.ledger.RepetitionSafety;
import dev.converge.provisioning.service.ProvisioningService;
import dev.converge.provisioning.approval.ApprovalAction;
import dev.converge.provisioning.approval.HowToApprove;
import dev.converge.provisioning.site.Site;
import dev.converge.provisioning.site.SiteState;
import java.util.List;

/**
 * {@code delete_site}: unsafe for a model to call freely: it tears a site down for good. It runs
 * only with a one-time approval that a person mints (CLI or HTTP API, never a tool); the
 * {@link ToolRunner} uses the approval before this runs, exactly once however many calls race.
 */
final class DeleteSiteTool {
    private DeleteSiteTool() {
    }

    static SiteTool declaration(ProvisioningService service) {
        return new SiteTool("delete_site", "Delete a site",
                "Deletes a site and everything provisioned for it (repository, hosting, database, license); this cannot "
                        + "be undone. Requires approval_token: a one-time approval that only a person can give for this "
                        + "site. You cannot make one yourself; without it the tool refuses and says whom to ask.",
                RepetitionSafety.UNSAFE, true,
                new ToolArgs(List.of(
                        SiteTool.siteIdArg(),
                        ToolArg.string(SiteTool.APPROVAL_TOKEN, "The one-time approval a person gave you for deleting "
                                + "this site.").range(1, 200))),
                new SiteTool.ApprovalGate(ApprovalAction.DELETE_SITE, HowToApprove::deleteSite),
                call -> {
                    Site before = SiteStatusTool.site(service, call);
                    Site site = service.sites().delete(call.tenant().id(), before.id())
                            .orElseThrow(() -> SiteStatusTool.notFound(call.args().ref(SiteTool.SITE_ID)));
                    boolean already = before.state() == SiteState.DELETING || before.state() == SiteState.DELETED;
                    return CreateSiteTool.receipt(already ? "already_deleting" : "deletion_started", site,
                            service.sites().receipt(site), (already ? "The site was already being deleted; " : "Deletion "
                                    + "started; ") + "the approval is now used and cannot delete anything else.");
                });
    }
}
