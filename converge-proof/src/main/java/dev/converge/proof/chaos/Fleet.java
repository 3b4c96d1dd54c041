package dev.converge.proof.chaos;

import dev.converge.crash.CrashPoint;
import dev.converge.leafsim.LeafSim;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Every process of a chaos run on loopback: the simulated leaves and the mail server (never
 * attacked, so they outlive the kills and keep the ground truth), the API server and the
 * workers (attacked and restarted). Leaf tokens reach the children through the environment,
 * never their command lines. Closing stops them all, and is safe to call twice (finally block
 * and shutdown hook).
 */
final class Fleet implements AutoCloseable {
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);

    private final ChaosSettings settings;
    private final Path runDir;
    private final Consumer<String> say;
    private final Random pauses;
    private final Map<String, String> env = new LinkedHashMap<>();
    private final int leafPort;
    private final int smtpPort;
    private final int mailPort;
    private final int apiPort;
    private final Slot leafsim;
    private final Slot mailsim;
    private final Slot api;
    private final List<Slot> workers = new ArrayList<>();
    private final List<String> serviceFlags;
    private final CrashTickets tickets;
    private final Map<String, CrashPoint> ticketOf = new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final java.util.Set<Integer> upgraded = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile ChildJvm archiver;

    /**
     * @param db         JDBC URL of the run's scratch database
     * @param siteDb     the PostgreSQL leaf's maintenance URL, or null for no per-site databases
     * @param dbPrefix   the name prefix of this run's per-site databases
     * @param tickets    which workers halt at which crash point
     */
    Fleet(ChaosSettings settings, Path runDir, String db, String siteDb, String dbPrefix, CrashTickets tickets,
            Consumer<String> say) {
        this.settings = settings;
        this.runDir = runDir;
        this.say = say;
        this.pauses = new Random(settings.seed() * 31 + 7);
        SecureRandom secrets = new SecureRandom();
        for (String leaf : LeafSim.LEAVES) {
            byte[] b = new byte[16];
            secrets.nextBytes(b);
            env.put("CONVERGE_" + leaf.toUpperCase(java.util.Locale.ROOT) + "_TOKEN", "chaos-" + HexFormat.of().formatHex(b));
        }
        int[] ports = freePorts(4);
        this.leafPort = ports[0];
        this.smtpPort = ports[1];
        this.mailPort = ports[2];
        this.apiPort = ports[3];
        this.serviceFlags = List.copyOf(serviceFlags(db, siteDb, dbPrefix));
        List<String> service = new ArrayList<>(serviceFlags);
        service.addAll(nodeFlags());
        this.tickets = tickets;
        this.leafsim = new Slot("leafsim", runDir, n -> List.of("leafsim", "--port", Integer.toString(leafPort), "--seed",
                Long.toString(settings.seed())), env, c -> LeafControl.answers(leafsimUrl() + "/_control/health"), false,
                false, this::restartPause, say, c -> { });
        this.mailsim = new Slot("mailsim", runDir, n -> List.of("mailsim", "--smtp-port", Integer.toString(smtpPort),
                "--http-port", Integer.toString(mailPort), "--idle-timeout", millis(MAIL_IDLE)), env,
                c -> LeafControl.answers(mailsimUrl() + "/health"), false,
                false, this::restartPause, say, c -> { });
        this.api = new Slot("api", runDir, n -> {
            List<String> a = new ArrayList<>(List.of("server", "--no-workers", "--port", Integer.toString(apiPort),
                    "--in-flight-timeout", "10s", "--node-id", "api." + n));
            a.addAll(service);
            if (settings.rollingDeploy()) {
                a.add("--next-version"); // the producer is on the next release before any worker is
            }
            return a;
        }, env, c -> LeafControl.answers(apiUrl() + "/health"), true, true, this::restartPause, say, c -> { });
        for (int i = 1; i <= settings.workers(); i++) {
            int w = i;
            workers.add(new Slot("worker-" + w, runDir, n -> workerArgs(w, n, service), env,
                    c -> c.output().contains("converge worker worker-" + w), true, true, this::restartPause, say,
                    this::ended));
        }
    }

    /** The n-th worker process of slot w: its node id, and a crash ticket if one is left. */
    private List<String> workerArgs(int w, int n, List<String> service) {
        String nodeId = "worker-" + w + "." + n;
        List<String> a = new ArrayList<>(List.of("worker", "--concurrency", Integer.toString(settings.concurrency()),
                "--node-id", nodeId));
        a.addAll(service);
        if (settings.virtualThreads()) {
            a.add("--virtual-threads");
        }
        if (upgraded.contains(w)) {
            a.add("--next-version");
        }
        CrashPoint ticket = tickets.take();
        if (ticket != null) {
            ticketOf.put(nodeId, ticket);
            a.addAll(List.of("--crash-rate", CrashTickets.spec(ticket), "--crash-seed",
                    Long.toString(settings.seed() * 10_000 + w * 100L + n)));
        }
        return a;
    }

    /** A worker process ended: its crash ticket, if it did not use it, goes to another. */
    private void ended(ChildJvm child) {
        String nodeId = child.log().getFileName().toString().replaceFirst("\\.log$", "");
        CrashPoint ticket = ticketOf.remove(nodeId);
        if (ticket != null && !child.output().contains(HaltingCrashPlan.MARK)) {
            tickets.giveBack(ticket);
        }
    }

    /** The service's settings every server and worker incarnation gets: where everything is, and its timings. */
    private List<String> serviceFlags(String db, String siteDb, String dbPrefix) {
        List<String> a = new ArrayList<>(List.of("--db", db, "--db-user", settings.dbUser(), "--db-pool", "6",
                "--leafsim-url", leafsimUrl(), "--smtp", "127.0.0.1:" + smtpPort, "--mail-lookup-url", mailsimUrl(),
                "--smtp-server-timeout", millis(MAIL_IDLE),
                "--flow-deadline", millis(settings.flowDeadline()), "--leaf-timeout", millis(settings.leafTimeout())));
        if (siteDb != null) {
            a.addAll(List.of("--site-db", siteDb, "--site-db-user", settings.dbUser(), "--site-db-prefix", dbPrefix));
        }
        if (settings.trial() != null) {
            a.addAll(List.of("--trial", millis(settings.trial())));
        }
        return a;
    }

    /** How every node works the queue in a chaos run: short leases and retries, so the run ends in minutes. */
    private List<String> nodeFlags() {
        List<String> a = new ArrayList<>(List.of("--lease", millis(settings.lease()), "--poll", "500ms",
                "--maintenance-every", "2s", "--reap-after", "5s", "--step-attempts", "12", "--step-backoff", "100ms",
                "--step-backoff-cap", "2s", "--step-timeout", "15s"));
        if (settings.naive()) {
            a.addAll(List.of("--naive", "--keep-orphans")); // no ledger: nothing of what the service does to converge
        } else {
            a.addAll(List.of("--remove-orphans-every", "5s"));
        }
        return a;
    }

    /** The flags of the service's settings (the checker reads the same configuration from them). */
    List<String> serviceFlags() {
        return serviceFlags;
    }

    /**
     * How long the mail server keeps a connection on which nothing arrives. The nodes are told the
     * same: a welcome email whose sender stopped mid-send is looked up only once it cannot land, so
     * every such site waits about this long (and a second), holding its provisioning's place
     * meanwhile; a second here, where a real server's minutes would keep the run's flows past their
     * deadline.
     */
    static final Duration MAIL_IDLE = Duration.ofSeconds(1);

    private static String millis(Duration d) {
        return d.toMillis() + "ms";
    }

    /** Starts the leaves and the mail server (they need no database), without waiting for them. */
    void startLeaves() {
        leafsim.start();
        mailsim.start();
    }

    /**
     * Makes (or finds) the class-data archive every later process maps; takes a throwaway API server
     * start the first time on a class path, and makes every later start cheaper.
     */
    void prepareClassArchive() {
        int port = freePorts(1)[0];
        List<String> a = new ArrayList<>(List.of("server", "--no-workers", "--port", Integer.toString(port), "--node-id",
                "archive"));
        a.addAll(serviceFlags);
        a.addAll(nodeFlags());
        ClassArchive.prepare(runDir, a, env, "http://127.0.0.1:" + port + "/health", say, c -> archiver = c).ifPresent(file -> {
            List<String> options = List.of("-XX:SharedArchiveFile=" + file);
            api.jvmOptions(options);
            workers.forEach(w -> w.jvmOptions(options));
        });
    }

    /** Starts the API server and the workers, and waits until every process is ready. */
    void startService() {
        api.start();
        workers.forEach(Slot::start);
        leafsim.awaitReady(READY_TIMEOUT);
        mailsim.awaitReady(READY_TIMEOUT);
        api.awaitReady(READY_TIMEOUT);
        for (Slot w : workers) {
            w.awaitReady(READY_TIMEOUT);
        }
    }

    private Duration restartPause() {
        synchronized (pauses) {
            return Duration.ofMillis(500 + pauses.nextInt(1000));
        }
    }

    String leafsimUrl() {
        return "http://127.0.0.1:" + leafPort;
    }

    String mailsimUrl() {
        return "http://127.0.0.1:" + mailPort;
    }

    String apiUrl() {
        return "http://127.0.0.1:" + apiPort;
    }

    Slot api() {
        return api;
    }

    List<Slot> workers() {
        return List.copyOf(workers);
    }

    /**
     * One step of a rolling deploy: worker slot {@code w} (from 1) runs the next release from its
     * next incarnation on, and its current one is stopped as a deploy stops a node (SIGTERM, the
     * shutdown grace to drain), its warm spare of the previous release discarded. False if the
     * slot was not up (it is upgraded all the same: its next start is of the next release).
     */
    boolean upgrade(int w, long graceMillis) {
        upgraded.add(w);
        return workers.get(w - 1).replace(graceMillis);
    }

    /** Restarts of the API server and the workers (after kills and crash-point halts). */
    int restarts() {
        return api.restarts() + workers.stream().mapToInt(Slot::restarts).sum();
    }

    /** Halts at crash points, counted from the lines the halting workers printed. */
    Map<String, Integer> crashPointHits() {
        Map<String, Integer> hits = new LinkedHashMap<>();
        for (CrashPoint p : CrashPoint.values()) {
            hits.put(p.id(), 0);
        }
        for (Slot w : workers) {
            for (Path log : w.logs()) {
                try (Stream<String> lines = Files.lines(log)) {
                    lines.filter(l -> l.startsWith(HaltingCrashPlan.MARK))
                            .forEach(l -> hits.merge(l.substring(HaltingCrashPlan.MARK.length()).trim(), 1, Integer::sum));
                } catch (IOException | UncheckedIOException e) {
                    say.accept("cannot read " + log + ": " + e.getMessage());
                }
            }
        }
        return hits;
    }

    /**
     * Stops the attacked processes first, then the leaves and the mail server: SIGTERM, and SIGKILL
     * after a short grace (the run is over; nothing they could finish matters, and Ctrl-C must be quick).
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        ChildJvm a = archiver;
        if (a != null && a.alive()) {
            a.stop(1000);
        }
        List<Thread> stoppers = new ArrayList<>();
        List<Slot> first = new ArrayList<>(workers);
        first.add(api);
        for (Slot s : first) {
            stoppers.add(stopper(s));
        }
        join(stoppers);
        join(List.of(stopper(leafsim), stopper(mailsim)));
    }

    private static Thread stopper(Slot s) {
        Thread t = new Thread(() -> s.stop(1500), "chaos-stop-" + s.name());
        t.start();
        return t;
    }

    private static void join(List<Thread> threads) {
        for (Thread t : threads) {
            try {
                t.join(15_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    Path runDir() {
        return runDir;
    }

    private static int[] freePorts(int n) {
        int[] ports = new int[n];
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                held.add(s);
                ports[i] = s.getLocalPort();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        } finally {
            for (ServerSocket s : held) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // the port is free again either way
                }
            }
        }
        return ports;
    }
}
