package dev.converge.provisioning.approval;

import java.time.Instant;

/**
 * A one-time approval just minted. {@code token} is shown to the person once and never stored
 * (only its SHA-256 is), so a copy of the database cannot approve anything.
 */
public record Approval(long id, long tenantId, long siteId, ApprovalAction action, String token, Instant expiresAt) {
    @Override
    public String toString() {
        return "Approval[id=" + id + ", tenant=" + tenantId + ", site=" + siteId + ", action=" + action.sql()
                + ", token=***, expiresAt=" + expiresAt + "]";
    }
}
