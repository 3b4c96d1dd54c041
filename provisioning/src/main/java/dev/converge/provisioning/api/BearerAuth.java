package dev.converge.provisioning.api;

import dev.converge.provisioning.tenant.Tenant;
import dev.converge.provisioning.tenant.Tenants;
import io.javalin.http.Context;
import java.util.Optional;

/**
 * {@code Authorization: Bearer <token>} to a tenant. The token is only ever hashed and compared by
 * its hash (see {@link Tenants}); it is never logged, echoed in a problem, or stored. A missing and
 * a wrong token get the same 401, with the RFC 6750 challenge.
 */
final class BearerAuth implements Authenticator {
    private static final String TENANT = "converge.tenant";
    private static final String SCHEME = "Bearer ";

    private final Tenants tenants;

    BearerAuth(Tenants tenants) {
        this.tenants = tenants;
    }

    @Override
    public Optional<Tenant> authenticate(String authorizationHeader) {
        if (authorizationHeader == null || authorizationHeader.length() <= SCHEME.length()
                || !authorizationHeader.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return Optional.empty();
        }
        return tenants.authenticate(authorizationHeader.substring(SCHEME.length()).strip());
    }

    /** A before-handler: the request goes on with its tenant attached, or is answered 401. */
    void require(Context ctx) {
        String header = ctx.header("Authorization");
        Tenant tenant = authenticate(header).orElseThrow(() -> {
            String challenge = header == null ? "Bearer realm=\"converge\""
                    : "Bearer realm=\"converge\", error=\"invalid_token\"";
            return new ApiProblem(ProblemType.UNAUTHORIZED, header == null
                    ? "Send Authorization: Bearer <token>." : "The bearer token is not valid.")
                    .header("WWW-Authenticate", challenge);
        });
        ctx.attribute(TENANT, tenant);
    }

    /** The tenant {@link #require} attached to the request. */
    static Tenant tenant(Context ctx) {
        Tenant t = ctx.attribute(TENANT);
        if (t == null) {
            throw new IllegalStateException("route " + ctx.path() + " is not behind authentication");
        }
        return t;
    }
}
