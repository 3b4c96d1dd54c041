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
 */
public final class ScaleNode {
    static final String READY = "scale-node ready";
    static final String HANDLED = "scale-node handled ";

    private ScaleNode() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5 || !(args[0].equals("engine") || args[0].equals("reference"))) {
            System.err.println("usage: ScaleNode engine|reference URL USER WORKERS NODE");
            System.exit(2);
        }
        String url = args[1];
        String user = args[2];
        int workers = Integer.parseInt(args[3]);
        String node = args[4];
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        long handled = args[0].equals("engine") ? engine(url, user, workers, node, in) : reference(url, user, workers, in);
        System.out.println(HANDLED + handled);
        System.out.flush();
        System.exit(0);
    }

    private static long engine(String url, String user, int workers, String node, BufferedReader in) throws IOException {
        AtomicLong handled = new AtomicLong();
        try (Store store = Store.open(StoreConfig.newBuilder().url(url).username(user).build());
                Converge engine = Converge.builder(store)
                        .handle(NoopJob.TYPE, (p, ctx) -> handled.incrementAndGet())
                        .queue(NoopJob.QUEUE, workers)
                        .nodeId(node).build()) {
            ready();
            if (in.readLine() == null) {
                return 0;
            }
            engine.start();
            drain(in);
        }
        return handled.get();
    }

    private static long reference(String url, String user, int workers, BufferedReader in) throws Exception {
        long done = ReferenceLoop.work(() -> DriverManager.getConnection(url, user, null), true, NoopJob.QUEUE, workers,
                -1, () -> {
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
}
