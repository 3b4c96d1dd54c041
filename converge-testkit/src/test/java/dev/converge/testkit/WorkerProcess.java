package dev.converge.testkit;

import dev.converge.Converge;
import dev.converge.claim.Claims;
import dev.converge.queue.JobType;
import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.Predicate;

/**
 * The other process of the cross-process tests: a worker node, or a crowd of claim racers, on a
 * PostgreSQL database given on the command line. It reports what it does on standard output,
 * one line per event, and takes {@code GO <epoch millis>} (claim racers) and {@code QUIT} on standard input.
 *
 * <pre>
 * work  URL USER NODE LEASE_MS [RESCUE_MS]
 *                                 run proc.step jobs; the first attempt of a job hangs if its payload says so
 * claim URL USER NODE KEYS THREADS on GO, every thread tries to claim every key; prints WON key
 * </pre>
 */
public final class WorkerProcess {
    public record Step(int n, boolean hangOnFirstAttempt) {
    }

    public static final JobType<Step> STEP = JobType.of("proc.step", Step.class);

    private WorkerProcess() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[1];
        String user = args[2];
        String node = args[3];
        try (Store store = Store.open(StoreConfig.postgres(url).username(user).maxPoolSize(8).build())) {
            if (args[0].equals("work")) {
                Duration lease = Duration.ofMillis(Long.parseLong(args[4]));
                work(store, node, lease, args.length > 5 ? Duration.ofMillis(Long.parseLong(args[5])) : lease.dividedBy(6));
            } else {
                claim(store, node, Integer.parseInt(args[4]), Integer.parseInt(args[5]));
            }
        }
        System.out.println("BYE");
    }

    private static void work(Store store, String node, Duration lease, Duration rescue) throws Exception {
        try (Converge engine = Converge.builder(store).nodeId(node).leases(l -> l.duration(lease).rescue(rescue)).queues(q -> q.poll(Duration.ofMillis(200)))
                .handle(STEP, (s, ctx) -> {
                    say("STARTED " + ctx.jobId() + " epoch=" + ctx.lease().epoch() + " attempt=" + ctx.attempt());
                    if (s.hangOnFirstAttempt() && ctx.attempt() == 1) {
                        Thread.sleep(Long.MAX_VALUE); // until SIGKILL
                    }
                    recordEffect(store, ctx.jobId(), ctx.lease().epoch(), node);
                    say("DONE " + ctx.jobId() + " epoch=" + ctx.lease().epoch());
                }).queue("default", 2).build()) {
            engine.start();
            say("READY");
            awaitLine("QUIT");
        }
    }

    /** The job's side effect, somewhere the test can count it. */
    private static void recordEffect(Store store, long jobId, long epoch, String node) {
        store.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO proc_effect (job_id, epoch, node) VALUES (?, ?, ?)")) {
                ps.setLong(1, jobId);
                ps.setLong(2, epoch);
                ps.setString(3, node);
                return ps.executeUpdate();
            }
        });
    }

    private static void claim(Store store, String node, int keys, int threads) throws Exception {
        Claims claims = dev.converge.Converge.builder(store).nodeId(node).build().claims();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> racers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            String owner = node + "/" + t;
            Thread racer = new Thread(() -> {
                try {
                    go.await();
                    for (int k = 0; k < keys; k++) {
                        if (claims.add("race:" + k, owner, Duration.ofMinutes(5)).isPresent()) {
                            say("WON race:" + k + " " + owner);
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            racer.start();
            racers.add(racer);
        }
        // the pool is up before the start, so the race is on the claims rather than on connecting
        try (Connection warm = store.dataSource().getConnection()) {
            say("READY");
        }
        // "GO <epoch millis>": both racers start at the same instant of this host's clock, whichever
        // read its line first, so neither can take every key before the other has begun
        String start = awaitLine(line -> line.startsWith("GO "));
        if (start == null) {
            throw new IllegalStateException("standard input closed before GO");
        }
        long at = Long.parseLong(start.substring(3).trim());
        Thread.sleep(Math.max(0, at - System.currentTimeMillis()));
        go.countDown();
        for (Thread r : racers) {
            r.join();
        }
        say("FINISHED");
        awaitLine("QUIT");
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static void awaitLine(String expected) throws Exception {
        awaitLine(line -> line.trim().equals(expected));
    }

    /** Reads standard input up to the first line that matches; null if the supervisor closed it first. */
    private static String awaitLine(Predicate<String> matches) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (matches.test(line)) {
                return line;
            }
        }
        return null;
    }
}
