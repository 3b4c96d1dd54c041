package dev.converge.provisioning.approval;

import dev.converge.provisioning.service.ProvisioningService;
import dev.converge.provisioning.flow.SiteJobs;
import dev.converge.provisioning.site.Site;
import dev.converge.provisioning.site.SiteState;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;

/**
 * What only a person may do about a site, through the CLI or the HTTP API and never through the
 * MCP tools: mint a one-time approval for an agent to delete it, and permit one more welcome email.
 * Every action is scoped to the person's tenant: another tenant's site does not exist here.
 */
public final class ApprovalDesk {
    /** What a person's request came to. */
    public sealed interface Outcome permits DeleteApproved, WelcomePermitted, NoSuchSite, SiteGone {
    }

    /** An approval to hand to the agent; the token is shown once. */
    public record DeleteApproved(Site site, Approval approval) implements Outcome {
    }

    /** One more welcome email is permitted: the agent's {@code send_welcome_email} may now send it, once. */
    public record WelcomePermitted(Site site) implements Outcome {
    }

    public record NoSuchSite(long siteId) implements Outcome {
    }

    /** The site is deleted (or being deleted): there is nothing left to approve. */
    public record SiteGone(Site site) implements Outcome {
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    private final ProvisioningService service;
    private final Approvals approvals;

    public ApprovalDesk(ProvisioningService service, Approvals approvals) {
        this.service = service;
        this.approvals = approvals;
    }

    public Approvals approvals() {
        return approvals;
    }

    public Outcome approveDelete(long tenantId, long siteId) {
        Optional<Site> site = service.sites().get(tenantId, siteId);
        if (site.isEmpty()) {
            return new NoSuchSite(siteId);
        }
        if (site.get().state() == SiteState.DELETED) {
            return new SiteGone(site.get());
        }
        return new DeleteApproved(site.get(), approvals.mint(tenantId, siteId, ApprovalAction.DELETE_SITE));
    }

    /** Adds one single-use welcome-email token for the site: each permits at most one more email. */
    public Outcome permitWelcome(long tenantId, long siteId) {
        Optional<Site> site = service.sites().get(tenantId, siteId);
        if (site.isEmpty()) {
            return new NoSuchSite(siteId);
        }
        if (site.get().state() == SiteState.DELETING || site.get().state() == SiteState.DELETED) {
            return new SiteGone(site.get());
        }
        byte[] raw = new byte[18];
        RANDOM.nextBytes(raw);
        String token = "wel_" + Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
        service.engine().tokens().add(SiteJobs.WELCOME_POOL, token, site.get().subject());
        return new WelcomePermitted(site.get());
    }
}
