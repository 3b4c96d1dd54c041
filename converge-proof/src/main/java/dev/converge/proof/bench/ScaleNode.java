package dev.converge.proof.bench;

import dev.converge.Converge;
import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.DriverManager;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The main class of {@code bench scale}'s child processes: {@code engine URL USER WORKERS NODE} or
 * {@code reference URL USER WORKERS NODE}. A child gets ready (the engine built on the builder's defaults
 * and its default pool, or the reference loop's threads connected), prints {@link #READY}, waits for a line
 * on standard input, then works the benchmark's queue until its standard input ends, prints
 * {@link #HANDLED} and the jobs it processed, and exits. Standard input ending is also how it dies with
 * its parent, however the parent ends.
 *
 * <p>With a sixth argument {@code now} ({@code bench start}) it does not wait: it starts working as soon as
 * it can, and records from its first instruction, every millisecond, the jobs it has durably finished (the
 * engine's recorded successes; the reference loop's committed marks), printed as {@link #PROGRESS} before
 * {@link #HANDLED}: pairs of wall-clock milliseconds and the count, one pair per change.
 */
public final class ScaleNode {
    static final String READY = "scale-node ready";
    static final String HANDLED = "scale-node handled ";
    static final String PROGRESS = "scale-node progress ";

    private ScaleNode() {
    }

    public static void main(String[] args) throws Exception {
        boolean now = args.length == 6 && args[5].equals("now");
        if (!(args.length == 5 || now) || !(args[0].equals("engine") || args[0].equals("reference"))) {
            System.err.println("usage: ScaleNode engine|reference URL USER WORKERS NODE [now]");
            System.exit(2);
        }
        Progress progress = now ? Progress.start() : null;
        String url = args[1];
        String user = args[2];
        int workers = Integer.parseInt(args[3]);
        String node = args[4];
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        long handled = args[0].equals("engine") ? engine(url, user, workers, node, in, progress)
                : reference(url, user, workers, in, progress);
        if (progress != null) {
            System.out.println(PROGRESS + progress.stop());
        }
        System.out.println(HANDLED + handled);
        System.out.flush();
        System.exit(0);
    }

    private static long engine(String url, String user, int workers, String node, BufferedReader in,
            Progress progress) throws IOException {
        AtomicLong handled = new AtomicLong();
        try (Store store = Store.open(StoreConfig.newBuilder().url(url).username(user).build());
                Converge engine = Converge.builder(store)
                        .handle(NoopJob.TYPE, (p, ctx) -> handled.incrementAndGet())
                        .queue(NoopJob.QUEUE, workers)
                        .nodeId(node).build()) {
            if (progress != null) {
                progress.follow(() -> engine.stats().succeeded());
            } else {
                ready();
                if (in.readLine() == null) {
                    return 0;
                }
            }
            engine.start();
            drain(in);
        }
        return handled.get();
    }

    private static long reference(String url, String user, int workers, BufferedReader in, Progress progress)
            throws Exception {
        AtomicLong marked = new AtomicLong();
        if (progress != null) {
            progress.follow(marked::get);
        }
        long done = ReferenceLoop.work(() -> DriverManager.getConnection(url, user, null), true, NoopJob.QUEUE, workers,
                -1, marked, () -> {
                    if (progress != null) {
                        return; // it works from its start
                    }
                    ready();
                    try {
                        if (in.readLine() == null) {
                            System.exit(0); // the parent is gone before the start
                        }
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
        drain(in);
        return done;
    }

    private static void ready() {
        System.out.println(READY);
        System.out.flush();
    }

    /** Returns when standard input ends (the parent's signal to finish, or its death). */
    private static void drain(BufferedReader in) throws IOException {
        while (in.readLine() != null) {
            // nothing else is said
        }
    }

    /** The count a {@code now} child has finished, sampled every millisecond from the JVM's first instruction of main. */
    private static final class Progress {
        private final StringBuilder pairs = new StringBuilder();
        private volatile java.util.function.LongSupplier count = () -> 0;
        private volatile boolean running = true;
        private Thread thread;

        static Progress start() {
            Progress p = new Progress();
            p.thread = new Thread(p::sample, "progress");
            p.thread.setDaemon(true);
            p.thread.start();
            return p;
        }

        void follow(java.util.function.LongSupplier c) {
            count = c;
        }

        private void sample() {
            long last = -1;
            while (running) {
                long n = count.getAsLong();
                if (n != last) {
                    synchronized (pairs) {
                        pairs.append(System.currentTimeMillis()).append(':').append(n).append(',');
                    }
                    last = n;
                }
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        /** Stops sampling, takes a last sample, and returns the pairs: {@code millis:count,millis:count,...}. */
        String stop() throws InterruptedException {
            running = false;
            thread.join();
            synchronized (pairs) {
                pairs.append(System.currentTimeMillis()).append(':').append(count.getAsLong());
                return pairs.toString();
            }
        }
    }
}
