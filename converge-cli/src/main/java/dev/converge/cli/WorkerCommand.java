package dev.converge.cli;

import dev.converge.provisioning.NodeOptions;
import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.options.NodeFlags;
import dev.converge.provisioning.options.ServiceOptions;
import dev.converge.store.Store;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

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

    @Override
    public Integer call() throws InterruptedException {
        CountDownLatch stop = new CountDownLatch(1);
        NodeOptions options = node.options(node.concurrency()); // a bad flag is refused before anything opens
        var config = service.config(); // so is a missing leaf token
        var chat = model.settings();
        try (Store store = service.database.open();
                Provisioning p = Provisioning.start(store, config, options, chat)) {
            Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "converge-stop"));
            System.out.println("converge worker " + p.engine().nodeId() + " working on " + store);
            stop.await();
        }
        return 0;
    }
}
