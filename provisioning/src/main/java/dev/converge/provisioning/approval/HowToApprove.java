package dev.converge.provisioning.approval;

/**
 * The words that tell an agent (and its person) how a person permits what an agent may not do on
 * its own. One place, so the MCP tools, the API and the CLI never disagree about the path.
 */
public final class HowToApprove {
    private HowToApprove() {
    }

    public static String deleteSite(long siteId) {
        return "A person must approve this deletion; you cannot approve it yourself. Ask them to run `converge "
                + "approve-delete --site " + siteId + "` (with their tenant token in CONVERGE_TENANT_TOKEN) or to call "
                + "POST /v1/sites/" + siteId + "/delete-approvals with the tenant's bearer token, then call delete_site "
                + "again with the approval_token they give you. An approval works once and expires.";
    }

    public static String welcomeResend(long siteId) {
        return "A person must permit another welcome email; you cannot permit it yourself. Ask them to run `converge "
                + "permit-welcome --site " + siteId + "` (with their tenant token in CONVERGE_TENANT_TOKEN) or to call "
                + "POST /v1/sites/" + siteId + "/welcome-resends with the tenant's bearer token, then call "
                + "send_welcome_email once. Each permission sends at most one email.";
    }
}
