package dev.converge.provisioning.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.provisioning.service.ProvisioningService;

/** What API extensions get: the service, the scope check ({@link Authz}) and the API's JSON mapper. */
public record ApiContext(ProvisioningService service, Authz authz, ObjectMapper json) {
    /** The bearer-token resolver alone; use {@link #authz()} to also check the token's scope. */
    public Authenticator authenticator() {
        return authz;
    }
}
