package dev.converge.cli;

import dev.converge.proof.chaos.ChaosReport;
import dev.converge.proof.chaos.ChaosRun;
import dev.converge.proof.chaos.ChaosSettings;
import dev.converge.provisioning.options.DurationConverter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code converge chaos}: the service for real on PostgreSQL, under attack, judged by its leaves. Exits non-zero on any violation. */
@Command(name = "chaos", mixinStandardHelpOptions = true,
        description = {"Run the provisioning service for real (API server, worker JVMs, simulated leaves, SMTP; PostgreSQL "
                + "in a scratch database the run creates and drops), attack it (SIGKILL and SIGSTOP of workers, crash points, "
                + "leaf faults of every type) while a careful client requests and deletes sites, wait for quiescence, then "
                + "check the leaves' own inventories, the mailbox and pg_database against what the client was told.",
            "Exit code: 0 converged; 1 any violation; 2 the run itself failed; 3 --naive showed no damage (the checker or "
                + "the faults are broken)."})
public final class ChaosCommand implements Callable<Integer> {
    @Option(names = "--sites", defaultValue = "300", description = "Sites the client requests (default ${DEFAULT-VALUE}).")
    int sites;

    @Option(names = "--workers", defaultValue = "4", description = "Worker processes (default ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--concurrency", defaultValue = "4", description = "Handler threads per worker (default ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(names = "--virtual-threads", description = "Run the workers' handlers on virtual threads (JDK 21 and later; "
            + "the workers run on this command's java).")
    boolean virtualThreads;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of faults, attacks, crash points and the client's "
            + "choices (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--kill-every", defaultValue = "2s..3s", description = "Interval between attacks on a worker, "
            + "drawn from a range (default ${DEFAULT-VALUE}).")
    String killEvery;

    @Option(names = "--kill-api", description = "Also SIGKILL the API server (every fifth attack).")
    boolean killApi;

    @Option(names = "--pause-every", defaultValue = "5", description = "Every n-th attack is a SIGSTOP past the lease "
            + "instead of a SIGKILL; 0 for none (default ${DEFAULT-VALUE}).")
    int pauseEvery;

    @Option(names = "--pg-restart", description = "Restart PostgreSQL once mid-run (pg_ctlcluster on the "
            + "local cluster listening on --db's port). Disturbs everything else using that server; off by default.")
    boolean pgRestart;

    @Option(names = "--pg-restart-command", hidden = true, description = "Shell command that restarts PostgreSQL instead.")
    String pgRestartCommand;

    @Option(names = "--fault-rate", defaultValue = "0.1", description = "Share of leaf calls that meet a fault, spread "
            + "over every fault type (default ${DEFAULT-VALUE}).")
    double faultRate;

    @Option(names = "--crash-hits", defaultValue = "2", description = "Worker halts to aim for at each named crash point "
            + "(a worker holding a ticket halts there; an unused ticket passes on); 0 for none (default ${DEFAULT-VALUE}).")
    int crashHits;

    @Option(names = "--rolling-deploy", description = "Replace the workers one at a time mid-run, by SIGTERM, with "
            + "nodes of a next release whose provisioning flow has a step type the previous release does not handle "
            + "(the API server runs the next release from the start).")
    boolean rollingDeploy;

    @Option(names = "--naive", description = "Run the steps the naive way (create without ledger or claim, "
            + "state updated before the call returns): the checker must find duplicates and orphans.")
    boolean naive;

    @Option(names = "--traffic", defaultValue = "60s", converter = DurationConverter.class,
            description = "How long the client spreads its requests over (default ${DEFAULT-VALUE}).")
    Duration traffic;

    @Option(names = "--delete-share", defaultValue = "0.15", description = "Share of sites the client deletes "
            + "(default ${DEFAULT-VALUE}).")
    double deleteShare;

    @Option(names = "--trial", defaultValue = "90s", converter = DurationConverter.class, description = "Every site's "
            + "trial (at least 20s; default ${DEFAULT-VALUE}): the client subscribes a share of the sites once active, the "
            + "others get one reminder and expire during the run.")
    Duration trial;

    @Option(names = "--no-trial", description = "Give the sites no trial: none expires.")
    boolean noTrial;

    @Option(names = "--subscribe-share", defaultValue = "0.3", description = "With --trial, the share of sites the "
            + "client subscribes (default ${DEFAULT-VALUE}).")
    double subscribeShare;

    @Option(names = "--flow-deadline", defaultValue = "60s", converter = DurationConverter.class,
            description = "Provisionings still running after this are failed by the watchdog (default ${DEFAULT-VALUE}).")
    Duration flowDeadline;

    @Option(names = "--lease", defaultValue = "3s", converter = DurationConverter.class,
            description = "Workers' lease (default ${DEFAULT-VALUE}).")
    Duration lease;

    @Option(names = "--leaf-timeout", defaultValue = "1s", converter = DurationConverter.class,
            description = "How long a leaf call may take (default ${DEFAULT-VALUE}).")
    Duration leafTimeout;

    @Option(names = "--hang", defaultValue = "2500ms", converter = DurationConverter.class,
            description = "How long a leaf holds a HANG_AFTER answer (default ${DEFAULT-VALUE}).")
    Duration hang;

    @Option(names = "--max-duration", converter = DurationConverter.class, description = "The run ends by itself "
            + "within this (default 165s, and with a trial long enough for the last requested site's trial to end: "
            + "--traffic + --trial + 105s).")
    Duration maxDuration;

    @Option(names = "--db", defaultValue = "jdbc:postgresql://127.0.0.1:5432/postgres", description = "A database on the "
            + "PostgreSQL server to run on; the run creates its own scratch database there and drops it "
            + "(default ${DEFAULT-VALUE}).")
    String db;

    @Option(names = "--db-user", defaultValue = "root", description = "PostgreSQL user (default ${DEFAULT-VALUE}).")
    String dbUser;

    @Option(names = "--site-db", description = "Also give each site a database on the same server "
            + "(checked in pg_database). Off by default: CREATE/DROP DATABASE cost about a second each here.")
    boolean siteDb;

    @Option(names = "--run-dir", description = "Where the processes' logs go (default: a new temporary directory).")
    Path runDir;

    @Option(names = "--keep-db", hidden = true, description = "Debugging: leave the scratch database behind.")
    boolean keepDb;

    @Option(names = "--json", description = "Also write the report as JSON to this file.")
    Path json;

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    @Override
    public Integer call() throws Exception {
        String[] range = killEvery.split("\\.\\.", 2);
        DurationConverter d = new DurationConverter();
        Duration min = d.convert(range[0]);
        Duration max = range.length > 1 ? d.convert(range[1]) : min;
        ChaosSettings settings = ChaosSettings.newBuilder().sites(sites).workers(workers).concurrency(concurrency).virtualThreads(virtualThreads).seed(seed)
                .killEvery(min, max).killApi(killApi).pauseEvery(pauseEvery).pgRestart(pgRestart)
                .pgRestartCommand(pgRestartCommand).faultRate(faultRate).crashHits(crashHits).naive(naive).rollingDeploy(rollingDeploy).trial(noTrial ? null : trial)
                .subscribeShare(subscribeShare).traffic(traffic)
                .deleteShare(deleteShare).flowDeadline(flowDeadline).lease(lease).leafTimeout(leafTimeout).hang(hang)
                .maxDuration(maxDuration != null ? maxDuration : noTrial ? Duration.ofSeconds(165)
                        : max(Duration.ofSeconds(165), traffic.plus(trial).plusSeconds(105))).db(db, dbUser).siteDb(siteDb).runDir(runDir).keepDb(keepDb).build();
        ChaosReport report;
        try {
            report = ChaosRun.run(settings, System.out);
        } catch (Exception e) {
            System.err.println("chaos: the run failed: " + e.getMessage());
            e.printStackTrace();
            return 2;
        }
        report.print(System.out);
        if (json != null) {
            report.writeJson(json);
            System.out.println("  json              " + json.toAbsolutePath());
        }
        return report.exitCode();
    }
}
