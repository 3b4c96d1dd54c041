package dev.converge.cli;

import dev.converge.proof.demo.Demo;
import dev.converge.proof.demo.DemoReport;
import dev.converge.proof.demo.DemoSettings;
import dev.converge.proof.demo.KeepOpen;
import dev.converge.provisioning.options.DurationConverter;
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

    @Option(names = "--trial", converter = DurationConverter.class, description = "A short trial to watch end "
            + "(30s to 1h, e.g. 90s): some sites are subscribed in time and stay, the others get one reminder and expire, "
            + "and a failed site is retried by hand. Default: a 14-day trial nobody waits for.")
    Duration trial;

    @Option(names = "--keep", description = "After the report, keep the server and its dashboard up until Ctrl-C.")
    boolean keep;

    /** Releases a kept demo without Ctrl-C (what the shutdown hook does); set when {@code --keep} runs. */
    volatile KeepOpen keepOpen;

    @Override
    public Integer call() throws Exception {
        DemoSettings settings = new DemoSettings(sites, seed, faultRate, crashRate, teardown, timeout, json, siteDb,
                trial);
        if (!keep) {
            DemoReport report = Demo.run(settings, System.out);
            report(report);
            return report.check().clean() ? 0 : 1;
        }
        KeepOpen k = new KeepOpen();
        keepOpen = k;
        Thread hook = k.shutdownHook(Duration.ofSeconds(20));
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            DemoReport report = Demo.run(settings, System.out, k, this::report);
            return report.check().clean() ? 0 : 1;
        } finally {
            k.closed();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down (Ctrl-C): the hook is running and lets it finish
            }
        }
    }

    private void report(DemoReport report) throws java.io.IOException {
        report.print(System.out);
        if (json != null) {
            report.writeJson(json);
            System.out.println("  json            " + json.toAbsolutePath());
        }
    }
}
