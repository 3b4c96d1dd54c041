package dev.converge.provisioning.access;

import java.time.Instant;
import java.util.Optional;

/**
 * Who a request's bearer token says it is: one token (by id, never by its secret), its scope, and
 * the tenant it acts for (none for an operator).
 */
public record Credential(long tokenId, Scope scope, Tenant tenant, Instant expiresAt) {
    public Credential {
        if ((scope == Scope.OPERATOR) != (tenant == null)) {
            throw new IllegalArgumentException("an operator credential has no tenant; every other has one");
        }
    }

    public Optional<Tenant> tenantIfAny() {
        return Optional.ofNullable(tenant);
    }

    public boolean allows(java.util.Set<Scope> allowed) {
        return allowed.contains(scope);
    }
}
