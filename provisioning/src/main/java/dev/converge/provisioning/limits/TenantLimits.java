package dev.converge.provisioning.limits;

/**
 * A tenant's limits: how many sites (not deleted), leads and open approvals it may hold, and how
 * many writes per minute it may send. Null in {@code pv_tenant} means the default here.
 */
public record TenantLimits(int maxSites, int maxLeads, int maxOpenApprovals, int writesPerMinute) {
    public static final TenantLimits DEFAULTS = new TenantLimits(1_000, 10_000, 20, 3_000);

    public TenantLimits {
        if (maxSites < 0 || maxLeads < 0 || maxOpenApprovals < 0 || writesPerMinute < 1) {
            throw new IllegalArgumentException("limits must not be negative, and at least one write a minute");
        }
    }
}
