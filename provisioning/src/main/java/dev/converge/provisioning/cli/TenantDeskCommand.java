package dev.converge.provisioning.cli;

import dev.converge.provisioning.NodeOptions;
import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.tenant.Tenant;
import dev.converge.store.Store;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * A command a person runs as their tenant, against the service's database, without starting any
 * workers: the tenant is the one whose bearer token is in the environment (never a flag, so it
 * does not show in process listings or shell history).
 */
abstract class TenantDeskCommand implements Callable<Integer> {
    @Mixin
    ServiceOptions service = new ServiceOptions();

    @Option(names = "--tenant-token-env", defaultValue = "CONVERGE_TENANT_TOKEN",
            description = "Environment variable holding your tenant's bearer token (default: ${DEFAULT-VALUE}).")
    String tenantTokenEnv;

    @Spec
    CommandSpec spec;

    private final UnaryOperator<String> env;

    /** Reads the environment through {@code env} (tests and embedding; the CLI uses the process environment). */
    TenantDeskCommand(UnaryOperator<String> env) {
        this.env = env;
    }

    /** Does the command's work as {@code tenant}; returns the exit code. */
    abstract int act(Provisioning p, Store store, Tenant tenant, PrintWriter out, PrintWriter err);

    @Override
    public final Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (Store store = service.database.open()) {
            Provisioning p = Provisioning.start(store, service.config(null),
                    NodeOptions.defaults().withConcurrency(0).withMaintenance(false, false));
            try {
                Optional<Tenant> tenant = TenantFromEnv.resolve(p, env, tenantTokenEnv, err);
                if (tenant.isEmpty()) {
                    return 2;
                }
                int code = act(p, store, tenant.get(), out, err);
                out.flush();
                err.flush();
                return code;
            } finally {
                p.close();
            }
        }
    }
}
