package dev.converge.provisioning.site;

import java.time.Instant;

/**
 * A site as stored. {@code receipt} is the JSON receipt given when it was requested;
 * {@code confirmation} what was recorded when it became active; {@code failure} why it did not;
 * {@code trialEndsAt} the deadline fixed at the request (null: none, the site never expires on its
 * own); {@code subscribedAt} when its tenant subscribed it. {@code id} is the database's key, which
 * the flows' subjects and the leaves' tags use; {@code publicId} ({@code site_...}, random) is the
 * one to show outside, as it reveals nothing of how many sites there are; {@code leadPublicId} its
 * lead's ({@code lead_...}).
 */
public record Site(long id, long tenantId, long leadId, String subdomain, String template, String plan,
        SiteState state, Long provisionFlowId, Long teardownFlowId, String receipt, String confirmation, String failure,
        Instant createdAt, Instant updatedAt, Subscription subscription, Instant trialEndsAt, Instant subscribedAt,
        String publicId, String leadPublicId) {

    /** This site with its provisioning flow (null: queued for admission) and stored receipt. */
    public Site withProvisionFlow(Long flowId, String receiptJson) {
        return new Site(id, tenantId, leadId, subdomain, template, plan, state, flowId, teardownFlowId, receiptJson,
                confirmation, failure, createdAt, updatedAt, subscription, trialEndsAt, subscribedAt, publicId, leadPublicId);
    }

    /** The subject of this site's flows and ledger entries. */
    public String subject() {
        return subjectOf(id);
    }

    public static String subjectOf(long siteId) {
        return "site-" + siteId;
    }

    /**
     * The site id whose tag in this installation ({@code tags.tagFor(subjectOf(id))}) this is
     * exactly, or 0 if it is none: another installation's tag, an old-format one
     * ({@code converge:site-N}) or anyone else's is 0.
     */
    public static long idInTag(dev.converge.ledger.ResourceTags tags, String tag) {
        if (!tags.isOurs(tag)) {
            return 0;
        }
        int start = tag.length();
        while (start > 0 && Character.isDigit(tag.charAt(start - 1))) {
            start--;
        }
        if (start == tag.length() || tag.length() - start > 18) {
            return 0;
        }
        long id = Long.parseLong(tag.substring(start));
        return id > 0 && tags.tagFor(subjectOf(id)).equals(tag) ? id : 0;
    }
}
