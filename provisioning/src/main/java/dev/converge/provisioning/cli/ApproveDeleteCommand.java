package dev.converge.provisioning.cli;

import dev.converge.provisioning.NodeOptions;
import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.approval.ApprovalDesk;
import dev.converge.provisioning.approval.Approvals;
import dev.converge.provisioning.tenant.Tenant;
import dev.converge.store.Store;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code converge approve-delete --site ID}: a person mints a one-time approval for an agent's
 * {@code delete_site}. The token is printed once and only its hash is stored.
 */
@Command(name = "approve-delete", mixinStandardHelpOptions = true,
        description = "Approve, once, an AI agent's deletion of one of your sites: prints a one-time approval token "
                + "to give to the agent (tenant token from the environment).")
public final class ApproveDeleteCommand implements Callable<Integer> {
    @Mixin
    ServiceOptions service = new ServiceOptions();

    @Option(names = "--site", required = true, description = "Id of the site the agent may delete.")
    long siteId;

    @Option(names = "--tenant-token-env", defaultValue = "CONVERGE_TENANT_TOKEN",
            description = "Environment variable holding your tenant's bearer token (default: ${DEFAULT-VALUE}).")
    String tenantTokenEnv;

    @Option(names = "--ttl", defaultValue = "15m", converter = DurationConverter.class,
            description = "How long the approval stays usable (default: ${DEFAULT-VALUE}; at most 24h).")
    Duration ttl;

    @Spec
    CommandSpec spec;

    private final UnaryOperator<String> env;

    public ApproveDeleteCommand() {
        this(System::getenv);
    }

    /** Reads the environment through {@code env} (tests and embedding; the CLI uses the process environment). */
    public ApproveDeleteCommand(UnaryOperator<String> env) {
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
                ApprovalDesk.Outcome o = new ApprovalDesk(p, new Approvals(store, ttl)).approveDelete(tenant.get().id(), siteId);
                if (o instanceof ApprovalDesk.DeleteApproved d) {
                    out.println("Approval to delete site " + siteId + " (" + d.site().subdomain() + "):");
                    out.println(d.approval().token());
                    out.println("Give it to the agent as delete_site's approval_token. It works once, until "
                            + d.approval().expiresAt() + ", and is not shown again.");
                    out.flush();
                    return 0;
                }
                err.println(o instanceof ApprovalDesk.NoSuchSite ? "your tenant has no site " + siteId
                        : "site " + siteId + " is already deleted: there is nothing to approve");
                return 1;
            } finally {
                p.close();
            }
        }
    }
}
