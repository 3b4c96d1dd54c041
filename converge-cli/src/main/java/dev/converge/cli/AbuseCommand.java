package dev.converge.cli;

import dev.converge.proof.abuse.Abuse;
import dev.converge.provisioning.options.DurationConverter;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code converge abuse}: the API's front door tried as an attacker would, beside a legitimate client. */
@Command(name = "abuse", mixinStandardHelpOptions = true,
        description = {"Attacks a running server (slow clients, made-up tokens, made-up HTTP methods, a noisy tenant writing, "
                + "a noisy tenant requesting sites), "
                + "each beside a legitimate client, and prints what the legitimate client saw, the /metrics series "
                + "count before and after, and the token lookups per attacking request.",
                "Tokens come from the environment: CONVERGE_TOKEN (the legitimate tenant's service token), "
                        + "CONVERGE_NOISY_TOKEN (another tenant's service token), CONVERGE_OPERATOR_TOKEN."})
final class AbuseCommand implements Callable<Integer> {
    private final Function<String, String> env;

    AbuseCommand() {
        this(System::getenv);
    }

    AbuseCommand(Function<String, String> env) {
        this.env = env;
    }

    @Option(names = "--url", defaultValue = "http://127.0.0.1:8080", description = "The server (default ${DEFAULT-VALUE}).")
    String url;

    @Option(names = "--attacker-address", defaultValue = "127.0.0.2", description = "Local address the attackers "
            + "connect from, so the server sees them as another client (default ${DEFAULT-VALUE}, a second loopback "
            + "address; against a remote server give an address of this machine).")
    String attackerAddress;

    @Option(names = "--slow-sockets", defaultValue = "2100", description = "Slow connections (default ${DEFAULT-VALUE}).")
    int slowSockets;

    @Option(names = "--tokens", defaultValue = "2000", description = "Requests with made-up tokens (default ${DEFAULT-VALUE}).")
    int tokens;

    @Option(names = "--methods", defaultValue = "300", description = "Requests with made-up methods (default ${DEFAULT-VALUE}).")
    int methods;

    @Option(names = "--phase", defaultValue = "20s", converter = DurationConverter.class,
            description = "How long each attack runs beside the legitimate client (default ${DEFAULT-VALUE}).")
    Duration phase;

    @Option(names = "--legit-rate", defaultValue = "20", description = "The legitimate client's requests a second "
            + "(default ${DEFAULT-VALUE}).")
    int legitRate;

    @Option(names = "--only", split = ",", description = "Run only these: none, slow, tokens, methods, sites, noisy (default: all).")
    java.util.Set<String> only = new java.util.LinkedHashSet<>();

    @Override
    public Integer call() throws Exception {
        Abuse.Options o = new Abuse.Options(ServerUrl.parse(url), env.apply("CONVERGE_TOKEN"), env.apply("CONVERGE_NOISY_TOKEN"),
                env.apply("CONVERGE_OPERATOR_TOKEN"), attackerAddress, slowSockets, tokens, methods, phase, legitRate, only);
        new Abuse(o).run(System.out);
        return 0;
    }
}
