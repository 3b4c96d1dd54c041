package dev.converge.provisioning.approval;

/**
 * The words that tell an agent how a person permits what an agent may not do on its own. They say
 * whom to ask and what to ask for, never a route or a command: the agent's token could not use
 * them anyway, and an agent told a route is invited to look for a token that can.
 */
public final class HowToApprove {
    private HowToApprove() {
    }

    public static String deleteSite(String siteId) {
        return "A person must approve this deletion; you cannot approve it yourself. Ask a person who approves "
                + "deletions for your organisation to approve deleting site " + siteId + ", then call delete_site again "
                + "with the approval_token they give you. An approval works once and expires.";
    }

    public static String welcomeResend(String siteId) {
        return "A person must permit another welcome email; you cannot permit it yourself. Ask a person who approves "
                + "for your organisation to permit one more welcome email for site " + siteId + ", then call "
                + "send_welcome_email once. Each permission sends at most one email.";
    }
}
