package dev.converge.provisioning.cli;

import dev.converge.provisioning.NodeOptions;
import dev.converge.provisioning.Provisioning;
import dev.converge.store.Store;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code converge worker}: a worker-only node; any number of them may share one PostgreSQL store. */
@Command(name = "worker", mixinStandardHelpOptions = true,
        description = "Work the queue (and take part in the watchdog and reaper) until stopped; no HTTP.")
public final class WorkerCommand implements Callable<Integer> {
    @Mixin
    ServiceOptions service = new ServiceOptions();

    @Mixin
    NodeFlags node = new NodeFlags();

    @Mixin
    ModelFlags model = new ModelFlags();

    @Option(names = "--standby", hidden = true, description = "Chaos runs only: open the store, then wait for a line on "
            + "standard input before working (a warm spare restarts in a second, not a JVM start); exit if it closes first.")
    boolean standby;

    @Override
    public Integer call() throws InterruptedException {
        CountDownLatch stop = new CountDownLatch(1);
        NodeOptions options = node.options(node.concurrency()); // a bad flag is refused before anything opens
        var config = service.config(null); // so is a missing leaf token
        var chat = model.settings();
        try (Store store = service.database.open()) {
            if (standby && !startSignal()) {
                return 0;
            }
            try (Provisioning p = Provisioning.start(store, config, options, chat)) {
                Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "converge-stop"));
                System.out.println("converge worker " + p.engine().nodeId() + " working on " + store);
                stop.await();
            }
        }
        return 0;
    }

    /** Waits for a line on standard input; false when it closes first (the supervisor is gone). */
    private static boolean startSignal() {
        System.out.println("converge worker standing by");
        try {
            return new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine() != null;
        } catch (IOException e) {
            return false;
        }
    }
}
