package dev.converge.provisioning.options;

import dev.converge.Converge;
import dev.converge.queue.JobType;
import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * A child JVM for {@link VirtualThreadsFlagTest}: a node's flags as {@code converge worker} parses them, applied
 * to an engine on an in-memory store; one job run, and the thread its handler ran on printed.
 */
public final class VirtualThreadsFlagMain {
    record Ping(String text) {
    }

    static final JobType<Ping> PING = JobType.of("flag.ping", Ping.class);

    @Command(name = "probe")
    static final class Probe {
        @Mixin
        NodeFlags node = new NodeFlags();
    }

    private VirtualThreadsFlagMain() {
    }

    public static void main(String[] args) throws Exception {
        Probe probe = new Probe();
        new CommandLine(probe).parseArgs(args);
        CompletableFuture<String> ranOn = new CompletableFuture<>();
        try (Store store = Store.open(StoreConfig.newBuilder().url("jdbc:h2:mem:flag;DB_CLOSE_DELAY=-1").build())) {
            store.migrate();
            Converge.Builder b = Converge.builder(store).queue("default", 4).handle(PING, (p, ctx) ->
                    ranOn.complete(Thread.currentThread().getName() + " virtual="
                            + Thread.class.getMethod("isVirtual").invoke(Thread.currentThread())));
            probe.node.options(4).engine().accept(b);
            try (Converge engine = b.build().start()) {
                engine.enqueue(PING, new Ping("hello"));
                System.out.println("handler ran on " + ranOn.get(30, TimeUnit.SECONDS));
            }
        }
        System.exit(0);
    }
}
