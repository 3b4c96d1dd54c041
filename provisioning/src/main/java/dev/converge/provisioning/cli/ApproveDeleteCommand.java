package dev.converge.provisioning.cli;

import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.approval.ApprovalDesk;
import dev.converge.provisioning.approval.Approvals;
import dev.converge.provisioning.tenant.Tenant;
import dev.converge.store.Store;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code converge approve-delete --site ID}: a person mints a one-time approval for an agent's
 * {@code delete_site}. The token is printed once and only its hash is stored.
 */
@Command(name = "approve-delete", mixinStandardHelpOptions = true,
        description = "Approve, once, an AI agent's deletion of one of your sites: prints a one-time approval token "
                + "to give to the agent (tenant token from the environment).")
public final class ApproveDeleteCommand extends TenantDeskCommand {
    @Option(names = "--site", required = true, description = "Id of the site the agent may delete.")
    long siteId;

    @Option(names = "--ttl", defaultValue = "15m", converter = DurationConverter.class,
            description = "How long the approval stays usable (default: ${DEFAULT-VALUE}; at most 24h).")
    Duration ttl;

    public ApproveDeleteCommand() {
        this(System::getenv);
    }

    /** Reads the environment through {@code env} (tests and embedding; the CLI uses the process environment). */
    public ApproveDeleteCommand(UnaryOperator<String> env) {
        super(env);
    }

    @Override
    int act(Provisioning p, Store store, Tenant tenant, PrintWriter out, PrintWriter err) {
        ApprovalDesk.Outcome o = new ApprovalDesk(p, new Approvals(store, ttl)).approveDelete(tenant.id(), siteId);
        if (o instanceof ApprovalDesk.DeleteApproved d) {
            out.println("Approval to delete site " + siteId + " (" + d.site().subdomain() + "):");
            out.println(d.approval().token());
            out.println("Give it to the agent as delete_site's approval_token. It works once, until "
                    + d.approval().expiresAt() + ", and is not shown again.");
            return 0;
        }
        err.println(o instanceof ApprovalDesk.NoSuchSite ? "your tenant has no site " + siteId
                : "site " + siteId + " is already deleted: there is nothing to approve");
        return 1;
    }
}
