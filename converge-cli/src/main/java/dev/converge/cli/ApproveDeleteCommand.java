package dev.converge.cli;

import dev.converge.provisioning.options.DurationConverter;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code converge approve-delete --site ID}: a person mints a one-time approval for an agent's
 * {@code delete_site}, through the server's API with their approver token. The approval is printed
 * once; the server stores only its hash.
 */
@Command(name = "approve-delete", mixinStandardHelpOptions = true,
        description = "Approve, once, an AI agent's deletion of one of your sites: prints a one-time approval token "
                + "to give to the agent (approver token from the environment).")
public final class ApproveDeleteCommand extends TenantDeskCommand {
    @Option(names = "--site", required = true, converter = SiteIdConverter.class,
            description = "Id of the site the agent may delete (site_...).")
    String siteId;

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
    int act(Api api, PrintWriter out, PrintWriter err) throws IOException, InterruptedException {
        if (ttl.compareTo(Duration.ofDays(1)) > 0) {
            throw new IllegalArgumentException("--ttl must be at most 24h");
        }
        Answer a = api.post("v1/sites/" + siteId + "/delete-approvals", "{\"ttl_seconds\":" + Math.max(1, ttl.toSeconds())
                + "}");
        if (a.status() != 201) {
            return refused(a, err);
        }
        out.println("Approval to delete site " + siteId + ":");
        out.println(a.body().path("approval_token").asText());
        out.println("Give it to the agent as delete_site's approval_token. It works once, until "
                + a.body().path("expires_at").asText() + ", and is not shown again.");
        return 0;
    }
}
