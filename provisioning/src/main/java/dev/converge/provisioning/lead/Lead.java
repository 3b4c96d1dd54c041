package dev.converge.provisioning.lead;

import java.time.Instant;

/**
 * Someone a tenant is selling to; becomes a customer only when their site is really active.
 * {@code id} is the database's key; {@code publicId} ({@code lead_...}, random) the one to show.
 */
public record Lead(long id, long tenantId, String name, String email, LeadStatus status, Instant createdAt,
        Instant updatedAt, String publicId) {
}
