package dev.converge.proof.chaos;

import dev.converge.proof.check.CheckReport;
import dev.converge.proof.check.ConvergenceCheck;
import dev.converge.proof.check.RemoteTruth;
import dev.converge.proof.demo.DemoFaults;
import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.config.ProvisioningConfig;
import dev.converge.provisioning.flow.SiteResources;
import dev.converge.provisioning.leaf.PostgresDatabaseLeaf;
import dev.converge.provisioning.limits.Limits;
import dev.converge.provisioning.limits.TenantLimits;
import dev.converge.provisioning.options.ServiceOptions;
import dev.converge.provisioning.tenant.Tenants;
import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;

/**
 * A chaos run: the provisioning service for real on a scratch PostgreSQL database — the API
 * server, several worker JVMs, the simulated leaves and a mail server, each its own process on
 * loopback — attacked while a careful client requests and deletes sites; then quiescence, then
 * the verdict of a checker that trusts the leaves, not us.
 *
 * <pre>
 *   set up      scratch database, schema, tenant; every process started and ready; leaf faults on
 *   attack      client traffic | SIGKILL/SIGSTOP of workers (and the API server) | crash points | PG restart
 *   quiescence  every flow ended (the watchdog fails the late ones), or the run's time is up
 *   verdict     the leaves' inventories, the mailbox, pg_database  vs  what the client was told
 *   clean up    every process stopped, the scratch database dropped (also on failure and Ctrl-C)
 * </pre>
 */
public final class ChaosRun {
    /** Kept free at the end of the run's time for the check, the report and stopping everything. */
    private static final Duration RESERVE = Duration.ofSeconds(12);
    /** The attacks go on this long after the last site request while the client still deletes. */
    private static final Duration DELETE_GRACE = Duration.ofSeconds(15);
    /**
     * Requests accepted this early in the traffic are also reported apart: every process of the fleet starts
     * as a cold JVM at once, and on a machine of two cores their JIT warm-up, not the engine, sets those times.
     */
    private static final Duration WARM_UP = Duration.ofSeconds(10);
    private static final Duration SETTLE_MAX = Duration.ofSeconds(30);
    private static final double SETTLED_CORES = 0.3;

    private final ChaosSettings settings;
    private final Timeline timeline;
    private final Instant quiesceBy;
    private final Path runDir;
    private final Cleanup cleanup = new Cleanup();
    private String tenantToken;
    private Instant trafficStart = Instant.now();
    private LeafControl leaves;

    private ChaosRun(ChaosSettings settings, PrintStream out, Path runDir) {
        this.settings = settings;
        this.timeline = new Timeline(out);
        this.quiesceBy = Instant.now().plus(settings.maxDuration()).minus(RESERVE);
        this.runDir = runDir;
    }

    public static ChaosReport run(ChaosSettings s, PrintStream out) throws Exception {
        Path runDir = s.runDir() != null ? Files.createDirectories(s.runDir()) : Files.createTempDirectory("converge-chaos-");
        out.printf("converge chaos (%s mode): %d sites, %d workers x %d, seed %d, attack every %d-%dms%s%s, leaf faults "
                + "%.0f%%, crash points %d halts each; logs in %s%n", s.naive() ? "naive" : "safe", s.sites(), s.workers(),
                s.concurrency(), s.seed(), s.killEveryMin().toMillis(), s.killEveryMax().toMillis(),
                s.killApi() ? " (API server too)" : "", s.pgRestart() ? ", one PostgreSQL restart" : "",
                s.faultRate() * 100, s.crashHits(), runDir);
        ChaosRun run = new ChaosRun(s, out, runDir);
        Thread hook = new Thread(run.cleanup::run, "chaos-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            run.setUp();
            run.attack();
            Quiescence.Pending pending = Quiescence.await(run.cleanup.store, run.quiesceDeadline(),
                    run.cleanup.traffic::deletesDone, !s.naive(), run.timeline::say);
            return run.verdict(pending);
        } finally {
            run.cleanup.run();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // already shutting down: the hook runs the same (idempotent) cleanup
            }
        }
    }

    /** The scratch database and schema, every process started and ready, the leaf faults on. */
    private void setUp() throws InterruptedException, IOException {
        ScratchPostgres scratch = ScratchPostgres.create(settings.dbUrl(), settings.dbUser());
        cleanup.scratch = scratch;
        if (settings.keepDb()) {
            scratch.keep();
        }
        timeline.say("scratch database " + scratch.name() + " created");
        Fleet fleet = new Fleet(settings, runDir, scratch.url(), settings.siteDb() ? scratch.maintenanceUrl() : null,
                scratch.sitePrefix(), new CrashTickets(settings.crashHits()), timeline::say);
        cleanup.fleet = fleet;
        fleet.startLeaves();
        Thread archive = new Thread(fleet::prepareClassArchive, "chaos-class-archive");
        archive.start();
        Store store = Store.open(StoreConfig.newBuilder().url(scratch.url()).username(settings.dbUser()).maxPoolSize(3)
                .poolName("chaos-supervisor").build());
        cleanup.store = store;
        Provisioning.migrate(store);
        Tenants.Created tenant = new Tenants(store).create("chaos tenant");
        TenantLimits limits = tenantLimits(settings);
        new Limits(store).update(tenant.tenant().id(), limits.maxSites(), limits.maxLeads(), null,
                limits.writesPerMinute());
        tenantToken = tenant.token();
        archive.join();
        timeline.say("schema migrated; starting the API server and " + settings.workers() + " workers (each with a warm "
                + "spare)");
        fleet.startService();
        timeline.say("all processes ready: API " + fleet.apiUrl() + ", leaves " + fleet.leafsimUrl() + ", mail listing "
                + fleet.mailsimUrl());
        settle();
        leaves = new LeafControl(fleet.leafsimUrl());
        if (settings.faultRate() > 0) {
            leaves.installFaults(settings.seed(), DemoFaults.rules(settings.faultRate(), settings.hang().toMillis()));
        }
    }

    /**
     * The chaos tenant's limits: the defaults, raised to what the run asks for. The run is the
     * tenant's whole traffic; with the defaults, requests past the 1,000th site would be refused
     * with a 429 the careful client keeps retrying for its whole patience, and never accepted.
     * Writes: a lead, a site, some sent again and some deleted, at most three a site, over the
     * traffic window.
     */
    /**
     * Waits (at most {@link #SETTLE_MAX}) until the fleet's processes, all started at once, are done
     * warming up: their CPU over the last second below {@link #SETTLED_CORES} of a core. A dozen cold JVMs
     * compile their hot code for many seconds, and on a small machine traffic sent meanwhile would
     * measure that backlog; a service runs for months after its start.
     */
    private void settle() throws InterruptedException {
        long started = System.nanoTime();
        long cpuBefore = fleetCpuNanos();
        long wallBefore = System.nanoTime();
        double cores = Double.NaN;
        while (System.nanoTime() - started < SETTLE_MAX.toNanos()) {
            Thread.sleep(1000);
            long cpu = fleetCpuNanos();
            long wall = System.nanoTime();
            cores = (double) (cpu - cpuBefore) / Math.max(1, wall - wallBefore);
            cpuBefore = cpu;
            wallBefore = wall;
            if (cores < SETTLED_CORES) {
                break;
            }
        }
        timeline.say(String.format("fleet %s after %.1fs: its processes used %.2f cores over the last second",
                cores < SETTLED_CORES ? "settled" : "still busy, starting anyway",
                (System.nanoTime() - started) / 1e9, cores));
    }

    /** CPU time of every process this run started (and theirs), as far as the platform reports it. */
    private static long fleetCpuNanos() {
        return ProcessHandle.current().descendants().mapToLong(p -> p.info().totalCpuDuration()
                .map(Duration::toNanos).orElse(0L)).sum();
    }

    static TenantLimits tenantLimits(ChaosSettings settings) {
        TenantLimits d = TenantLimits.DEFAULTS;
        long perMinute = (long) Math.ceil(3.0 * settings.sites() * 60_000 / Math.max(1, settings.traffic().toMillis()));
        return new TenantLimits(Math.max(d.maxSites(), settings.sites()), Math.max(d.maxLeads(), settings.sites()),
                d.maxOpenApprovals(), (int) Math.min(Integer.MAX_VALUE, Math.max(d.writesPerMinute(), perMinute)));
    }

    /** The client's traffic under attack, until every request was answered and the deletes had their time. */
    private void attack() throws InterruptedException {
        Attacks attacks = new Attacks(settings, cleanup.fleet, timeline::say);
        cleanup.attacks = attacks;
        ChaosTraffic traffic = new ChaosTraffic(new ChaosClient(cleanup.fleet.apiUrl(), tenantToken,
                Duration.ofSeconds(60)), settings, timeline::say);
        cleanup.traffic = traffic;
        attacks.start(settings.traffic().plus(DELETE_GRACE), settings.traffic());
        cleanup.cpuIdle = CpuIdle.start();
        cleanup.childCpu = ChildCpu.start();
        cleanup.databaseCpu = DatabaseCpu.start(cleanup.scratch::withBackendPid).orElse(null);
        trafficStart = Instant.now();
        traffic.start(quiesceBy);
        traffic.awaitRequests(quiesceBy.minusSeconds(20));
        traffic.awaitDeletes(min(Instant.now().plus(DELETE_GRACE), quiesceBy.minusSeconds(20)));
        attacks.close();
        timeline.say(String.format("attacks over: %d SIGKILLs (%d of the API server), %d SIGSTOPs, %d restarts so far%s",
                attacks.kills(), attacks.apiKills(), attacks.pauses(), cleanup.fleet.restarts(),
                settings.rollingDeploy() ? ", " + attacks.rolled() + " workers rolled to the next release" : ""));
    }

    /**
     * The run's own end. A flow's deadline counts from its start, and at a few thousand sites the last flows
     * start long after the traffic began and queue behind the others: a fixed margin after the traffic would
     * cut off a run that is still converging. The wait ends earlier when nothing is left to move.
     */
    private Instant quiesceDeadline() {
        return quiesceBy;
    }

    /** Checks the leaves against what the client was told, and reports. */
    private ChaosReport verdict(Quiescence.Pending pending) {
        ChaosTraffic traffic = cleanup.traffic;
        Fleet fleet = cleanup.fleet;
        Store store = cleanup.store;
        Attacks attacks = cleanup.attacks;
        traffic.stop();
        if (settings.faultRate() > 0) {
            leaves.clearFaults();
        }
        // the checker's natural keys come from the very flags the servers and workers were given
        // (--dev: the checker derives natural keys and calls no leaf as us; the children hold the real tokens)
        java.util.List<String> flags = new java.util.ArrayList<>(fleet.serviceFlags());
        flags.add("--dev");
        ServiceOptions service = CommandLine.populateCommand(new ServiceOptions(), flags.toArray(new String[0]));
        ProvisioningConfig config = service.config();
        PostgresDatabaseLeaf dbLeaf = config.database() == null ? null : new PostgresDatabaseLeaf(config.database());
        Map<String, Instant> sites = traffic.acceptedSites();
        Map<String, Instant> deletes = traffic.acceptedDeletes();
        CheckReport check = new ConvergenceCheck(store, new SiteResources(config),
                new RemoteTruth(fleet.leafsimUrl(), fleet.mailsimUrl(), dbLeaf)).run(sites.keySet(), deletes.keySet());
        ConvergeTimes times = ConvergeTimes.measure(store, sites, deletes);
        java.util.List<Long> warm = times.acceptedFrom(trafficStart.plus(WARM_UP));
        ChaosReport report = new ChaosReport(settings.naive() ? "naive" : "safe", settings.seed(), timeline.millis(),
                settings.sites(), settings.workers(), traffic.tally(), attacks.kills(), attacks.apiKills(), attacks.pauses(),
                attacks.rolled(), fleet.restarts(), attacks.pgRestarts(), DemoFaults.hitsByType(leaves.hits()), fleet.crashPointHits(),
                Quiescence.watchdogFailures(store), pending != null && pending.none(), String.valueOf(pending),
                ConvergeTimes.percentile(times.all(), 50), ConvergeTimes.percentile(times.all(), 99),
                ConvergeTimes.percentile(times.createMillis(), 50), ConvergeTimes.percentile(times.createMillis(), 99),
                ConvergeTimes.percentile(times.deleteMillis(), 50), ConvergeTimes.percentile(times.deleteMillis(), 99),
                ConvergeTimes.percentile(times.all(), 100), WARM_UP.toMillis(), warm.size(),
                ConvergeTimes.percentile(warm, 50), ConvergeTimes.percentile(warm, 99),
                times.p99ByWindow(trafficStart, WARM_UP), cpuIdleByWindow(),
                cpuSecondsByRole(),
                cleanup.childCpu == null ? Map.of() : cleanup.childCpu.processesByRole(), check, runDir.toString());
        timeline.say("checked; stopping every process and dropping " + cleanup.scratch.name());
        return report;
    }

    private static Instant min(Instant a, Instant b) {
        return a.isBefore(b) ? a : b;
    }

    /** The CPU-seconds of the run's processes by role, and its database server's where it can be seen. */
    private Map<String, Double> cpuSecondsByRole() {
        Map<String, Double> out = new java.util.TreeMap<>();
        if (cleanup.childCpu != null) {
            out.putAll(cleanup.childCpu.cpuSecondsByRole());
        }
        if (cleanup.databaseCpu != null) {
            out.put(DatabaseCpu.ROLE, cleanup.databaseCpu.cpuSeconds());
        }
        return out;
    }

    /** The cores' idle share in each window of traffic, as the p99s are, up to now. */
    private java.util.List<Integer> cpuIdleByWindow() {
        CpuIdle c = cleanup.cpuIdle;
        return c == null ? java.util.List.of() : c.idlePercentByWindow(trafficStart, WARM_UP);
    }

    /** Stops what the run started, in order; safe to run twice (finally block and shutdown hook). */
    private static final class Cleanup {
        volatile CpuIdle cpuIdle;
        volatile ChildCpu childCpu;
        volatile DatabaseCpu databaseCpu;
        volatile Attacks attacks;
        volatile ChaosTraffic traffic;
        volatile Fleet fleet;
        volatile Store store;
        volatile ScratchPostgres scratch;

        synchronized void run() {
            if (traffic != null) {
                traffic.stop();
            }
            for (AutoCloseable c : List.<AutoCloseable>of(orNone(cpuIdle), orNone(childCpu), orNone(databaseCpu),
                    orNone(attacks), orNone(fleet),
                    orNone(store), orNone(scratch))) {
                try {
                    c.close();
                } catch (Exception e) {
                    System.err.println("chaos: cleanup: " + e);
                }
            }
            attacks = null;
            fleet = null;
            store = null;
            scratch = null;
        }

        private static AutoCloseable orNone(AutoCloseable c) {
            return c == null ? () -> { } : c;
        }
    }
}
