package dev.converge.provisioning.cli;

import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.approval.ApprovalDesk;
import dev.converge.provisioning.approval.Approvals;
import dev.converge.provisioning.tenant.Tenant;
import dev.converge.store.Store;
import java.io.PrintWriter;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code converge permit-welcome --site ID}: a person permits one more welcome email for a site. */
@Command(name = "permit-welcome", mixinStandardHelpOptions = true,
        description = "Permit one more welcome email for one of your sites; an AI agent's send_welcome_email may then "
                + "send it, once (tenant token from the environment).")
public final class PermitWelcomeCommand extends TenantDeskCommand {
    @Option(names = "--site", required = true, description = "Id of the site.")
    long siteId;

    public PermitWelcomeCommand() {
        this(System::getenv);
    }

    /** Reads the environment through {@code env} (tests and embedding; the CLI uses the process environment). */
    public PermitWelcomeCommand(UnaryOperator<String> env) {
        super(env);
    }

    @Override
    int act(Provisioning p, Store store, Tenant tenant, PrintWriter out, PrintWriter err) {
        ApprovalDesk.Outcome o = new ApprovalDesk(p, new Approvals(store)).permitWelcome(tenant.id(), siteId);
        if (o instanceof ApprovalDesk.WelcomePermitted) {
            out.println("One more welcome email is permitted for site " + siteId
                    + ": the agent's send_welcome_email may send it, once.");
            return 0;
        }
        err.println(o instanceof ApprovalDesk.NoSuchSite ? "your tenant has no site " + siteId
                : "site " + siteId + " is deleted or being deleted: no welcome email to permit");
        return 1;
    }
}
