package dev.converge.provisioning.site;

import java.util.Locale;

/**
 * What a tenant is told about a site that failed: a stable code it can switch on and a short
 * message that names nothing of ours. The flow's own words (leaf paths, our org and server ids,
 * exception classes) stay in the flow's record and the log, for operators.
 */
public record SiteFailure(String code, String message) {
    public static final String DEADLINE = "deadline_exceeded";
    public static final String DELETED = "deleted_during_provisioning";
    public static final String NAME_TAKEN = "name_taken_at_provider";
    public static final String NEEDS_ATTENTION = "needs_attention";
    public static final String FAILED = "provisioning_failed";

    /** The failure of a site in {@code state} whose flow recorded {@code reason}; null if there is none. */
    public static SiteFailure of(SiteState state, String reason) {
        if (state == SiteState.NEEDS_ATTENTION) {
            return new SiteFailure(NEEDS_ATTENTION, "Provisioning could not be finished or undone on its own; the "
                    + "service's operators have been told and will settle it.");
        }
        if (reason == null) {
            return null;
        }
        String r = reason.toLowerCase(Locale.ROOT);
        if (r.contains("deadline")) {
            return new SiteFailure(DEADLINE, "Provisioning took longer than the service allows; everything it had "
                    + "created was removed. The site may be requested again.");
        }
        if (r.contains("deleted while")) {
            return new SiteFailure(DELETED, "The site was deleted while it was being provisioned.");
        }
        if (r.contains("not ours") || r.contains("another subject") || r.contains("whose it is")
                || r.contains("already exists")) {
            return new SiteFailure(NAME_TAKEN, "A resource with this site's name already exists at one of our "
                    + "providers and is not ours; everything else was removed. Request the site under another "
                    + "subdomain.");
        }
        return new SiteFailure(FAILED, "Provisioning failed; everything it had created was removed. The site may be "
                + "requested again.");
    }

    /** A flow transition's reason as a tenant may see it: ours as written, a failure by its code. */
    public static String shownReason(String to, String reason) {
        if (to == null || !(to.equals("failed") || to.equals("compensating") || to.equals("needs_attention"))) {
            return reason;
        }
        SiteFailure f = of(to.equals("needs_attention") ? SiteState.NEEDS_ATTENTION : SiteState.FAILED, reason);
        return f == null ? null : f.code();
    }
}
