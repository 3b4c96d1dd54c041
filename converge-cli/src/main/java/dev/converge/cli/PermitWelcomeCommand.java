package dev.converge.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code converge permit-welcome --site ID}: a person permits one more welcome email, through the server's API. */
@Command(name = "permit-welcome", mixinStandardHelpOptions = true,
        description = "Permit one more welcome email for one of your sites; an AI agent's send_welcome_email may then "
                + "send it, once (approver token from the environment).")
public final class PermitWelcomeCommand extends TenantDeskCommand {
    @Option(names = "--site", required = true, converter = SiteIdConverter.class,
            description = "Id of the site (site_...).")
    String siteId;

    public PermitWelcomeCommand() {
        this(System::getenv);
    }

    /** Reads the environment through {@code env} (tests and embedding; the CLI uses the process environment). */
    public PermitWelcomeCommand(UnaryOperator<String> env) {
        super(env);
    }

    @Override
    int act(Api api, PrintWriter out, PrintWriter err) throws IOException, InterruptedException {
        Answer a = api.post("v1/sites/" + siteId + "/welcome-resends", null);
        if (a.status() != 201) {
            return refused(a, err);
        }
        out.println("One more welcome email is permitted for site " + siteId
                + ": the agent's send_welcome_email may send it, once.");
        return 0;
    }
}
