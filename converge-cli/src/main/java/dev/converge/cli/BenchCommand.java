package dev.converge.cli;

import dev.converge.proof.bench.DashboardBench;
import dev.converge.proof.bench.FlowBench;
import dev.converge.proof.bench.FlowBenchOptions;
import dev.converge.proof.bench.FlowBenchResult;
import dev.converge.proof.bench.QueueBench;
import dev.converge.proof.bench.QueueBenchOptions;
import dev.converge.proof.bench.QueueBenchResult;
import dev.converge.proof.bench.ScaleBench;
import dev.converge.proof.bench.StartBench;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code converge bench ...}: throughput and latency figures, each beside a reference measured in the same run. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Benchmarks that print the engine's figures beside a reference measured in the same run.",
        subcommands = {BenchCommand.Queue.class, BenchCommand.Flows.class, BenchCommand.Scale.class,
                BenchCommand.DashboardPages.class, BenchCommand.Start.class})
public final class BenchCommand implements Runnable {

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this), "say what to benchmark: bench queue, bench flow, bench scale, bench start, or bench dashboard");
    }

    /** The PostgreSQL server every bench command runs on, in a scratch database of its own. */
    static final class Server {
        @Option(names = "--db", defaultValue = "jdbc:postgresql://127.0.0.1:5432/postgres",
                description = "PostgreSQL server to run on; the run creates a scratch database there and drops it "
                        + "(default: ${DEFAULT-VALUE})")
        String db;

        @Option(names = "--user", defaultValue = "root", description = "PostgreSQL user (default: ${DEFAULT-VALUE})")
        String user;
    }

    /** {@code converge bench queue}: enqueue, processing and pickup of no-op jobs against a hand-written SKIP LOCKED loop. */
    @Command(name = "queue", mixinStandardHelpOptions = true,
            description = "Enqueue (bulk and one per transaction), processing until durably done, pickup latency, "
                    + "and a hand-written SKIP LOCKED loop on the same database for reference.")
    static final class Queue implements Callable<Integer> {
        @Option(names = "--store", defaultValue = "postgres", description = "postgres or h2 (default: ${DEFAULT-VALUE})")
        String store;

        @Mixin
        Server server;

        @Option(names = "--jobs", defaultValue = "20000", description = "jobs per measured phase (default: ${DEFAULT-VALUE})")
        int jobs;

        @Option(names = "--workers", defaultValue = "16",
                description = "handler threads, and threads of the reference loop (default: ${DEFAULT-VALUE})")
        int workers;

        @Option(names = "--samples", defaultValue = "200", description = "pickup-latency samples (default: ${DEFAULT-VALUE})")
        int samples;

        @Option(names = "--prefetch", defaultValue = "-1",
                description = "jobs the engine may lease ahead of its handler threads (default: the builder's default)")
        int prefetch;

        @Option(names = "--fetch-limit", defaultValue = "-1",
                description = "jobs one fetch may lease (default: the builder's default)")
        int fetchLimit;

        @Option(names = "--rounds", defaultValue = "3",
                description = "warm rounds after the first (cold) one; engine and references take turns in each, and "
                        + "the warm figures are their medians (default: ${DEFAULT-VALUE})")
        int rounds;

        @Option(names = "--vacuum",
                description = "VACUUM ANALYZE before every processing run, the engine's and the reference's alike "
                        + "(default: none, as a user runs it)")
        boolean vacuum;

        @Option(names = "--only", split = ",",
                description = "run only these phases: bulk, single, process, pickup (default: all)")
        java.util.Set<String> only = new java.util.LinkedHashSet<>();

        @Option(names = "--json", description = "also write the figures as one JSON object to this file")
        Path json;

        @Option(names = "--finished-rows", defaultValue = "0",
                description = "succeeded jobs kept in the table during every processing run, the engine's and the "
                        + "reference's alike, as retention keeps a day's history (default: ${DEFAULT-VALUE})")
        long finishedRows;

        @Override
        public Integer call() throws Exception {
            QueueBenchOptions options = new QueueBenchOptions(store, server.db, server.user, jobs, workers, samples, prefetch, fetchLimit,
                    rounds, vacuum, only, json, finishedRows);
            QueueBenchResult result = new QueueBench(options, msg -> System.err.println("bench: " + msg)).run();
            result.print(System.out);
            if (json != null) {
                result.writeJson(json);
                System.out.println("  written to " + json);
            }
            return 0;
        }
    }

    /** {@code converge bench dashboard}: every route of the dashboard's JSON on a production-sized store. */
    @Command(name = "dashboard", mixinStandardHelpOptions = true,
            description = "Fills a scratch database with finished and live jobs, flows, ledger entries and a week of "
                    + "queue history, then asks every route the dashboard page reads, one request after another, and "
                    + "prints p50/p95/max beside the session check's (the floor of HTTP and JSON). Exits 1 when a "
                    + "route's p95 is 300 ms or more.")
    static final class DashboardPages implements Callable<Integer> {
        @Mixin
        Server server;

        @Option(names = "--finished", defaultValue = "1000000", description = "finished jobs (default: ${DEFAULT-VALUE})")
        long finished;

        @Option(names = "--live", defaultValue = "100000", description = "waiting and running jobs (default: ${DEFAULT-VALUE})")
        long live;

        @Option(names = "--requests", defaultValue = "40", description = "measured requests per route (default: ${DEFAULT-VALUE})")
        int requests;

        @Option(names = "--json", description = "also write the figures as one JSON object to this file")
        Path json;

        @Override
        public Integer call() throws Exception {
            DashboardBench.Result r = new DashboardBench(new DashboardBench.Options(server.db, server.user, finished, live,
                    requests), msg -> System.err.println("bench: " + msg)).run();
            r.print(System.out);
            if (json != null) {
                new com.fasterxml.jackson.databind.ObjectMapper().enable(
                        com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(),
                                DashboardBench.toJson(r));
                System.out.println("  written to " + json);
            }
            return r.met() ? 0 : 1;
        }
    }

    /** {@code converge bench flow}: ledger-guarded flows beside the same flows of plain jobs. */
    @Command(name = "flow", mixinStandardHelpOptions = true,
            description = "Provisioning-shaped flows (a batch of three steps, a chain of two more, one single-use token) "
                    + "with every step guarded by the ledger, beside the same flows of plain jobs calling the same "
                    + "in-process leaves directly: the price of the guarantee.")
    static final class Flows implements Callable<Integer> {
        @Option(names = "--store", defaultValue = "postgres", description = "postgres or h2 (default: ${DEFAULT-VALUE})")
        String store;

        @Mixin
        Server server;

        @Option(names = "--flows", defaultValue = "2000", description = "flows per measured run (default: ${DEFAULT-VALUE})")
        int flows;

        @Option(names = "--workers", defaultValue = "16", description = "handler threads (default: ${DEFAULT-VALUE})")
        int workers;

        @Option(names = "--rounds", defaultValue = "3",
                description = "warm rounds after the first (cold) one; guarded and plain take turns in each "
                        + "(default: ${DEFAULT-VALUE})")
        int rounds;

        @Option(names = "--json", description = "also write the figures as one JSON object to this file")
        Path json;

        @Override
        public Integer call() throws Exception {
            FlowBenchResult result = new FlowBench(new FlowBenchOptions(store, server.db, server.user, flows, workers, rounds, json),
                    msg -> System.err.println("bench: " + msg)).run();
            result.print(System.out);
            if (json != null) {
                result.writeJson(json);
                System.out.println("  written to " + json);
            }
            return 0;
        }
    }

    /** {@code converge bench scale}: processing by 1, 2, 4 worker processes on one database, each beside the reference loop. */
    @Command(name = "scale", mixinStandardHelpOptions = true,
            description = "Processing of no-op jobs by N separate worker processes (cold JVMs) on one PostgreSQL "
                    + "database, for each N beside the hand-written SKIP LOCKED loop run in N processes the same way; "
                    + "with commits per job and the peak of connections.")
    static final class Scale implements Callable<Integer> {
        @Mixin
        Server server;

        @Option(names = "--jobs", defaultValue = "20000", description = "jobs per measured run (default: ${DEFAULT-VALUE})")
        int jobs;

        @Option(names = "--processes", defaultValue = "1,2,4", split = ",",
                description = "counts of worker processes to measure (default: ${DEFAULT-VALUE})")
        java.util.List<Integer> processes;

        @Option(names = "--workers", defaultValue = "8",
                description = "handler threads per process, and loop threads per reference process (default: ${DEFAULT-VALUE})")
        int workers;

        @Option(names = "--rounds", defaultValue = "1",
                description = "times each count is measured; the engine goes first in odd rounds, the reference in "
                        + "even ones (default: ${DEFAULT-VALUE})")
        int rounds;

        @Option(names = "--vacuum",
                description = "VACUUM ANALYZE after every fill, for the engine and the reference alike (default: none)")
        boolean vacuum;

        @Override
        public Integer call() throws Exception {
            ScaleBench.Options options = new ScaleBench.Options(server.db, server.user, jobs, processes, workers, rounds, vacuum);
            new ScaleBench(options, msg -> System.err.println("bench: " + msg)).run().print(System.out);
            return 0;
        }
    }

    /** {@code converge bench start}: a process started cold, to its first job and to a steady rate, beside the reference loop's. */
    @Command(name = "start", mixinStandardHelpOptions = true,
            description = "A worker process started cold on a queue of waiting jobs: the time from its launch to its "
                    + "first finished job, to a steady rate and to the empty queue, beside a hand-written SKIP LOCKED "
                    + "loop started the same way.")
    static final class Start implements Callable<Integer> {
        @Mixin
        Server server;

        @Option(names = "--jobs", defaultValue = "60000", description = "jobs waiting at each start (default: ${DEFAULT-VALUE})")
        int jobs;

        @Option(names = "--workers", defaultValue = "16",
                description = "handler threads of the process, and threads of the reference loop (default: ${DEFAULT-VALUE})")
        int workers;

        @Option(names = "--rounds", defaultValue = "3",
                description = "starts of each side; the engine goes first in odd rounds (default: ${DEFAULT-VALUE})")
        int rounds;

        @Option(names = "--jvm-option", description = "a JVM option for both sides' processes, repeatable (e.g. "
                + "-XX:SharedArchiveFile=converge-cli/target/converge-<key>.jsa, the launcher's class-data archive); "
                + "default: none, the JVM's defaults")
        java.util.List<String> jvmOptions = new java.util.ArrayList<>();

        @Override
        public Integer call() throws Exception {
            StartBench.Options options = new StartBench.Options(server.db, server.user, jobs, workers, rounds, jvmOptions);
            StartBench.print(options, new StartBench(options, msg -> System.err.println("bench: " + msg)).run(),
                    System.out);
            return 0;
        }
    }
}
