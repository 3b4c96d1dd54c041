package dev.converge.proof.chaos;

import dev.converge.leafsim.LeafSim;
import dev.converge.leafsim.LeafSimConfig;
import dev.converge.proof.naive.NaiveSiteSteps;
import dev.converge.provisioning.NodeOptions;
import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.api.ApiOptions;
import dev.converge.provisioning.api.ApiServer;
import dev.converge.provisioning.extensions.StandardExtensions;
import dev.converge.provisioning.mail.MailSim;
import dev.converge.provisioning.options.DurationConverter;
import dev.converge.provisioning.options.NodeFlags;
import dev.converge.provisioning.options.ServiceOptions;
import dev.converge.store.Store;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * The main class of a chaos run's child processes. The API server and the workers are the
 * service's own, built from the same flags as {@code converge server} and {@code converge worker};
 * what the run does to them is added here, where the service's commands never see it: the naive
 * steps, a crash plan that halts the JVM at the engine's crash points, and a warm spare that
 * stands by until told to work. The leaf simulator and the mail server run here too.
 */
@Command(name = "chaos-node", subcommands = {ChaosNode.Server.class, ChaosNode.Worker.class, ChaosNode.Leaves.class,
        ChaosNode.Mail.class})
public final class ChaosNode {
    private ChaosNode() {
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new ChaosNode()).execute(args));
    }

    /** What the run does to a server or worker node, on top of the service's own node flags. */
    static final class Damage {
        /** The deploy step's job type in the next release of a rolling deploy. */
        static final String NEXT_DEPLOY = "site.deploy-v2";

        @Option(names = "--naive", description = "The naive steps (no ledger, no claim, no token).")
        boolean naive;

        @Option(names = "--crash-rate", description = "Halt this JVM at the engine's crash points with this probability "
                + "(0.01, or point=p,...,*=p).")
        String crashRate;

        @Option(names = "--crash-seed", defaultValue = "0", description = "Seed of --crash-rate decisions.")
        long crashSeed;

        @Option(names = "--next-version", description = "Run as the next release of a rolling deploy: its provisioning "
                + "flow deploys through a step type (" + NEXT_DEPLOY + ") that nodes of the previous release do not handle.")
        boolean nextVersion;

        NodeOptions apply(NodeOptions n) {
            if (nextVersion) {
                n = n.withJobs(n.jobs().withDeployType(NEXT_DEPLOY)).withEngine(b -> b.nodeVersion("next"));
            }
            if (crashRate != null) {
                HaltingCrashPlan plan = HaltingCrashPlan.parse(crashRate, crashSeed);
                n = n.withEngine(b -> b.crashPlan(plan));
            }
            return naive ? n.withStepHandlers(NaiveSiteSteps.handlers()) : n;
        }
    }

    /** The API server, serving only: the queue is the workers'. */
    @Command(name = "server")
    static final class Server implements Callable<Integer> {
        @Mixin
        ServiceOptions service = new ServiceOptions();

        @Mixin
        NodeFlags node = new NodeFlags();

        @Mixin
        Damage damage = new Damage();

        @Option(names = "--port", required = true)
        int port;

        @Option(names = "--no-workers", description = "Accepted for the service's own flags' sake: this server never works.")
        boolean noWorkers;

        @Option(names = "--in-flight-timeout", converter = DurationConverter.class)
        Duration inFlightTimeout;

        @Option(names = "--standby", description = "Open the store, then wait for a line on standard input before "
                + "serving (a warm spare, as the workers have); exit if it closes first.")
        boolean standby;

        @Override
        public Integer call() throws InterruptedException {
            CountDownLatch stop = new CountDownLatch(1);
            ApiOptions api0 = ApiOptions.defaults().withPort(port);
            if (inFlightTimeout != null) {
                api0 = api0.withInFlightTimeout(inFlightTimeout);
            }
            NodeOptions options = damage.apply(node.options(0));
            try (Store store = service.database.open()) {
                if (standby && !Worker.startSignal("converge server standing by")) {
                    return 0;
                }
                serve(store, options, api0, stop);
            }
            return 0;
        }

        private void serve(Store store, NodeOptions options, ApiOptions api0, CountDownLatch stop)
                throws InterruptedException {
            try (Provisioning p = Provisioning.start(store, service.config(), options);
                    ApiServer api = ApiServer.start(p, api0, StandardExtensions.all())) {
                Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "converge-stop"));
                System.out.println("converge server listening on http://127.0.0.1:" + api.port() + " (node "
                        + p.engine().nodeId() + ", store " + store + ")");
                stop.await();
            }
        }
    }

    /** A worker; with {@code --standby}, a warm spare that opens the store, then waits to be told to work. */
    @Command(name = "worker")
    static final class Worker implements Callable<Integer> {
        @Mixin
        ServiceOptions service = new ServiceOptions();

        @Mixin
        NodeFlags node = new NodeFlags();

        @Mixin
        Damage damage = new Damage();

        @Option(names = "--standby", description = "Open the store, then wait for a line on standard input before "
                + "working (a warm spare restarts in a second, not a JVM start); exit if it closes first.")
        boolean standby;

        @Override
        public Integer call() throws InterruptedException {
            CountDownLatch stop = new CountDownLatch(1);
            NodeOptions options = damage.apply(node.options(node.concurrency()));
            var config = service.config();
            try (Store store = service.database.open()) {
                if (standby && !startSignal("converge worker standing by")) {
                    return 0;
                }
                try (Provisioning p = Provisioning.start(store, config, options)) {
                    Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "converge-stop"));
                    System.out.println("converge worker " + p.engine().nodeId() + " working on " + store);
                    stop.await();
                }
            }
            return 0;
        }

        /** Waits for a line on standard input; false when it closes first (the supervisor is gone). */
        static boolean startSignal(String standingBy) {
            System.out.println(standingBy);
            try {
                return new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine() != null;
            } catch (IOException e) {
                return false;
            }
        }
    }

    /** The simulated leaves, never attacked: their tokens come from the environment, as the nodes' do. */
    @Command(name = "leafsim")
    static final class Leaves implements Callable<Integer> {
        @Option(names = "--port", required = true)
        int port;

        @Option(names = "--seed", defaultValue = "42")
        long seed;

        @Override
        public Integer call() throws InterruptedException {
            List<String> args = new ArrayList<>(List.of("--port", Integer.toString(port), "--seed", Long.toString(seed),
                    "--host", "127.0.0.1"));
            for (String leaf : LeafSim.LEAVES) {
                String token = ServiceOptions.env("CONVERGE_" + leaf.toUpperCase(java.util.Locale.ROOT) + "_TOKEN", null);
                if (token != null) {
                    args.add("--token");
                    args.add(leaf + "=" + token);
                }
            }
            LeafSim.runStandalone(LeafSimConfig.fromArgs(args.toArray(new String[0])));
            return 0;
        }
    }

    /** The mail server the welcome emails go to, with the listing the nodes settle unsure sends by. */
    @Command(name = "mailsim")
    static final class Mail implements Callable<Integer> {
        @Option(names = "--smtp-port", required = true)
        int smtpPort;

        @Option(names = "--http-port", required = true)
        int httpPort;

        @Option(names = "--idle-timeout", required = true, converter = DurationConverter.class)
        Duration idleTimeout;

        @Override
        public Integer call() throws Exception {
            CountDownLatch stop = new CountDownLatch(1);
            try (MailSim sim = MailSim.start("127.0.0.1", smtpPort, httpPort, idleTimeout)) {
                Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "mailsim-stop"));
                System.out.println("mailsim listening: SMTP on 127.0.0.1:" + sim.smtpPort() + ", listing on http://127.0.0.1:"
                        + sim.httpPort() + "/messages");
                stop.await();
            }
            return 0;
        }
    }
}
