package dev.converge.provisioning.cli;

import dev.converge.provisioning.NodeOptions;
import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.approval.ApprovalDesk;
import dev.converge.provisioning.approval.Approvals;
import dev.converge.provisioning.tenant.Tenant;
import dev.converge.store.Store;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code converge permit-welcome --site ID}: a person permits one more welcome email for a site. */
@Command(name = "permit-welcome", mixinStandardHelpOptions = true,
        description = "Permit one more welcome email for one of your sites; an AI agent's send_welcome_email may then "
                + "send it, once (tenant token from the environment).")
public final class PermitWelcomeCommand implements Callable<Integer> {
    @Mixin
    ServiceOptions service = new ServiceOptions();

    @Option(names = "--site", required = true, description = "Id of the site.")
    long siteId;

    @Option(names = "--tenant-token-env", defaultValue = "CONVERGE_TENANT_TOKEN",
            description = "Environment variable holding your tenant's bearer token (default: ${DEFAULT-VALUE}).")
    String tenantTokenEnv;

    @Spec
    CommandSpec spec;

    private final UnaryOperator<String> env;

    public PermitWelcomeCommand() {
        this(System::getenv);
    }

    /** Reads the environment through {@code env} (tests and embedding; the CLI uses the process environment). */
    public PermitWelcomeCommand(UnaryOperator<String> env) {
        this.env = env;
    }

    @Override
    public Integer call() {
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
                ApprovalDesk.Outcome o = new ApprovalDesk(p, new Approvals(store)).permitWelcome(tenant.get().id(), siteId);
                if (o instanceof ApprovalDesk.WelcomePermitted) {
                    out.println("One more welcome email is permitted for site " + siteId
                            + ": the agent's send_welcome_email may send it, once.");
                    out.flush();
                    return 0;
                }
                err.println(o instanceof ApprovalDesk.NoSuchSite ? "your tenant has no site " + siteId
                        : "site " + siteId + " is deleted or being deleted: no welcome email to permit");
                return 1;
            } finally {
                p.close();
            }
        }
    }
}
