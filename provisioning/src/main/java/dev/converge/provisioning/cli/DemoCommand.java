package dev.converge.provisioning.cli;

import dev.converge.provisioning.demo.Demo;
import dev.converge.provisioning.demo.DemoReport;
import dev.converge.provisioning.demo.DemoSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code converge demo}: the main job, end to end on the embedded store. Exits 1 if any invariant fails. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Provision sites end to end (embedded H2, simulated leaves, SMTP, the HTTP API, workers) with leaf "
                + "faults and crash points switched on, tear some down, and check the leaves against what was asked.")
public final class DemoCommand implements Callable<Integer> {
    @Option(names = "--sites", defaultValue = "50", description = "Sites to request (default ${DEFAULT-VALUE}).")
    int sites;

    @Option(names = "--seed", defaultValue = "7", description = "Seed of faults, crashes and choices (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--fault-rate", defaultValue = "0.1", description = "Share of leaf calls that meet a fault.")
    double faultRate;

    @Option(names = "--crash-rate", defaultValue = "0.05", description = "Share of crash points where the attempt dies.")
    double crashRate;

    @Option(names = "--teardown", defaultValue = "0.2", description = "Share of active sites deleted afterwards.")
    double teardown;

    @Option(names = "--timeout", defaultValue = "120s", converter = DurationConverter.class,
            description = "How long to wait for convergence.")
    Duration timeout;

    @Option(names = "--json", description = "Also write the report as JSON to this file.")
    Path json;

    @Option(names = "--site-db", description = "Give each site a database on this PostgreSQL server "
            + "(e.g. jdbc:postgresql://127.0.0.1:5432/postgres); none by default.")
    String siteDb;

    @Override
    public Integer call() throws Exception {
        DemoReport report = Demo.run(new DemoSettings(sites, seed, faultRate, crashRate, teardown, timeout, json, siteDb),
                System.out);
        report.print(System.out);
        if (json != null) {
            report.writeJson(json);
            System.out.println("  json            " + json.toAbsolutePath());
        }
        return report.check().clean() ? 0 : 1;
    }
}
