package dev.converge.provisioning.access;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a bearer token may do. A token has exactly one scope, so a credential handed to an agent
 * can never also approve what the agent asks for. {@code operator} belongs to no tenant.
 */
public enum Scope {
    /** An AI agent: the MCP tools and the read endpoints; never a delete, an approval or a permit. */
    AGENT,
    /** A tenant's own backend: the HTTP API (leads, sites, deletes). */
    SERVICE,
    /** A person of the tenant: mints delete approvals and welcome permits, and reads. */
    APPROVER,
    /** The service's operators: orphans, metrics, the ops surface; sees no tenant's data by default. */
    OPERATOR;

    /** The scopes that may read a tenant's leads and sites. */
    public static final Set<Scope> TENANT_READ = EnumSet.of(AGENT, SERVICE, APPROVER);

    /** The scopes a tenant's token may have. */
    public static final Set<Scope> TENANT = EnumSet.of(AGENT, SERVICE, APPROVER);

    /** Its name in the database, on the command line and in problems. */
    public String sql() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Scope parse(String s) {
        for (Scope scope : values()) {
            if (scope.sql().equals(s == null ? null : s.strip().toLowerCase(Locale.ROOT))) {
                return scope;
            }
        }
        throw new IllegalArgumentException("scope must be one of " + Arrays.stream(values()).map(Scope::sql)
                .collect(Collectors.joining(", ")) + "; got: " + s);
    }

    /** {@code "agent, service"}: how problems and help texts name a set of scopes. */
    public static String names(Set<Scope> scopes) {
        return scopes.stream().sorted().map(Scope::sql).collect(Collectors.joining(", "));
    }
}
