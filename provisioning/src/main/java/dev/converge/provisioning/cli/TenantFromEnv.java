package dev.converge.provisioning.cli;

import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.tenant.Tenant;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.function.UnaryOperator;

/** The tenant a person acts as on the command line: its token is read from the environment, never from a flag. */
final class TenantFromEnv {
    private TenantFromEnv() {
    }

    static Optional<Tenant> resolve(Provisioning p, UnaryOperator<String> env, String variable, PrintWriter err) {
        String token = env.apply(variable);
        if (token == null || token.isBlank()) {
            err.println("set " + variable + " to your tenant's bearer token (it is read from the environment so it "
                    + "does not show in process listings or shell history)");
            return Optional.empty();
        }
        Optional<Tenant> tenant = p.tenants().credentials().authenticate(token.strip())
                .filter(c -> c.scope() == dev.converge.provisioning.access.Scope.APPROVER).map(c -> c.tenant());
        if (tenant.isEmpty()) {
            err.println("the token in " + variable + " is not a tenant's approver token");
        }
        return tenant;
    }
}
