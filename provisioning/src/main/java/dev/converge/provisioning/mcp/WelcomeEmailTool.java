package dev.converge.provisioning.mcp;

import dev.converge.ledger.RepetitionSafety;
import dev.converge.provisioning.service.ProvisioningService;
import dev.converge.provisioning.approval.HowToApprove;
import dev.converge.provisioning.flow.SiteJobs;
import dev.converge.provisioning.site.Site;
import dev.converge.provisioning.site.SiteState;
import dev.converge.queue.EnqueueResult;
import dev.converge.queue.Job;
import dev.converge.token.Token;
import dev.converge.token.TokenState;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code send_welcome_email}: idempotent by token. Sends the welcome email again only with an
 * unspent single-use token, which only a person can add; the job is enqueued under a key derived
 * from that token, so repeated calls queue one send, and the send spends the token at most once.
 */
final class WelcomeEmailTool {
    private final ProvisioningService service;

    private WelcomeEmailTool(ProvisioningService service) {
        this.service = service;
    }

    static SiteTool declaration(ProvisioningService service) {
        WelcomeEmailTool t = new WelcomeEmailTool(service);
        return new SiteTool("send_welcome_email", "Send the welcome email again",
                "Sends the welcome email of an active site to its lead again. Each resend needs a permission that a "
                        + "person grants (the tool says how when there is none); one permission sends at most one email.",
                RepetitionSafety.IDEMPOTENT_BY_TOKEN, true,
                new ToolArgs(List.of(SiteTool.siteIdArg())),
                null, t::handle);
    }

    private ToolResult handle(SiteTool.Call call) {
        Site site = SiteStatusTool.site(service, call);
        long id = site.id();
        String shown = site.publicId();
        if (site.state() != SiteState.ACTIVE) {
            throw new ToolRefusal("site_not_active", "Site " + shown + " is " + site.state().sql() + "; the welcome email is "
                    + "sent again only for an active site (a new site sends its first one by itself when it becomes active).",
                    "Call get_site_status until the site is active, then call send_welcome_email.")
                    .with(SiteTool.SITE_ID, shown).with("state", site.state().sql());
        }
        Optional<Token> permission = service.engine().tokens().forSubject(SiteJobs.WELCOME_POOL, site.subject())
                .filter(t -> t.state() != TokenState.SPENT);
        if (permission.isEmpty()) {
            throw new ToolRefusal("resend_not_permitted", "Every welcome email permitted for site " + shown
                    + " was already sent, so none was sent now.", HowToApprove.welcomeResend(shown))
                    .with(SiteTool.SITE_ID, shown);
        }
        Token token = permission.get();
        EnqueueResult queued = service.engine().enqueue(Job.of(service.jobs().welcome, new SiteJobs.SiteRef(id))
                .uniqueKey("welcome-resend:" + token.id()));
        String to = service.leads().get(call.tenant().id(), site.leadId()).map(l -> l.email()).orElse(null);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("outcome", queued.duplicate() ? "already_queued" : "queued");
        out.put("site_id", shown);
        out.put("to", to);
        out.put("job_id", queued.jobId());
        out.put("permission_id", token.id());
        out.put("message", queued.duplicate()
                ? "A resend under this permission was already queued; nothing more was queued. One email goes out."
                : "One welcome email is queued for the lead; it is sent once, spending this permission.");
        out.put("next_steps", List.of("Nothing to repeat: calling again does not send a second email under this "
                + "permission.", "Another resend later needs another permission from a person."));
        return ToolResult.ok(out);
    }
}
