package dev.converge.cli;

import dev.converge.leafsim.LeafSim;
import dev.converge.leafsim.LeafSimConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code converge leafsim}: the simulated leaf services, standalone, until stopped. */
@Command(name = "leafsim", mixinStandardHelpOptions = true,
        description = "Run the simulated git host, hosting and license services on one port until stopped.")
public final class LeafsimCommand implements Callable<Integer> {
    @Option(names = "--port", defaultValue = "8089", description = "Port (default ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--seed", defaultValue = "42", description = "Seed of fault decisions.")
    long seed;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Bind address.")
    String host;

    @Override
    public Integer call() throws InterruptedException {
        List<String> args = new ArrayList<>(List.of("--port", Integer.toString(port), "--seed", Long.toString(seed),
                "--host", host));
        for (String leaf : LeafSim.LEAVES) {
            String token = System.getenv("CONVERGE_" + leaf.toUpperCase() + "_TOKEN");
            if (token != null && !token.isBlank()) {
                args.add("--token");
                args.add(leaf + "=" + token);
            }
        }
        LeafSim.runStandalone(LeafSimConfig.fromArgs(args.toArray(new String[0])));
        return 0;
    }
}
