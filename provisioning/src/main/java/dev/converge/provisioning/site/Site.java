package dev.converge.provisioning.site;

import java.time.Instant;

/**
 * A site as stored. {@code receipt} is the JSON receipt given when it was requested;
 * {@code confirmation} what was recorded when it became active; {@code failure} why it did not.
 */
public record Site(long id, long tenantId, long leadId, String subdomain, String template, String plan,
        SiteState state, Long provisionFlowId, Long teardownFlowId, String receipt, String confirmation, String failure,
        Instant createdAt, Instant updatedAt) {

    /** The subject of this site's flows and ledger entries. */
    public String subject() {
        return subjectOf(id);
    }

    public static String subjectOf(long siteId) {
        return "site-" + siteId;
    }
}
