package dev.converge;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A child JVM for {@link VirtualHandlerThreadsTest}: one queue of {@code n} handlers, each calling a leaf
 * over HTTP on loopback that answers only once all {@code n} calls are waiting on it (or after 20 s), with
 * the handlers on virtual threads ({@code virtual}, JDK 21 and later) or on the engine's own platform
 * threads ({@code platform}). Prints how many handlers ran at once and the JVM's peak of platform threads.
 */
public final class VirtualHandlersMain {
    record Call(int n) {}

    static final JobType<Call> CALL = JobType.of("leaf.call", Call.class);

    private VirtualHandlersMain() {
    }

    public static void main(String[] args) throws Exception {
        boolean virtual = args[0].equals("virtual");
        int n = Integer.parseInt(args[1]);
        ScheduledExecutorService late = Executors.newSingleThreadScheduledExecutor();
        ConcurrentLinkedQueue<HttpExchange> waiting = new ConcurrentLinkedQueue<>();
        AtomicInteger arrived = new AtomicInteger();
        HttpServer leaf = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        leaf.setExecutor(Runnable::run); // the server's one dispatcher thread; answers leave from elsewhere
        leaf.createContext("/create", exchange -> {
            exchange.getRequestBody().readAllBytes();
            waiting.add(exchange);
            if (arrived.incrementAndGet() == n) {
                late.execute(() -> answerAll(waiting));
            } else {
                late.schedule(() -> answerAll(waiting), 20, TimeUnit.SECONDS);
            }
        });
        leaf.start();
        String url = "http://127.0.0.1:" + leaf.getAddress().getPort() + "/create";

        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(n);
        long start = System.nanoTime();
        try (Store store = Store.open(StoreConfig.newBuilder().url("jdbc:h2:mem:virtual;DB_CLOSE_DELAY=-1").build())) {
            store.migrate();
            Converge.Builder b = Converge.builder(store).queue("default", n);
            if (virtual) {
                ThreadFactory handlers = virtualThreads();
                b.queues(q -> q.handlerThreads(handlers));
            }
            try (Converge engine = b.handle(CALL, (call, ctx) -> {
                most.accumulateAndGet(running.incrementAndGet(), Math::max);
                try {
                    HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
                    c.setRequestMethod("POST");
                    c.setDoOutput(true);
                    c.getOutputStream().write(("{\"n\":" + call.n() + "}").getBytes(StandardCharsets.UTF_8));
                    try (InputStream in = c.getInputStream()) {
                        in.readAllBytes();
                    }
                } finally {
                    running.decrementAndGet();
                    done.countDown();
                }
            }).build().start()) {
                List<Job<Call>> jobs = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    jobs.add(Job.of(CALL, new Call(i)));
                }
                engine.enqueueAll(jobs);
                if (!done.await(60, TimeUnit.SECONDS)) {
                    System.out.println("timeout: " + done.getCount() + " calls not done");
                }
            }
        }
        System.out.printf("result running=%d peak-platform-threads=%d seconds=%.1f%n", most.get(),
                ManagementFactory.getThreadMXBean().getPeakThreadCount(), (System.nanoTime() - start) / 1e9);
        leaf.stop(0);
        late.shutdownNow();
        System.exit(0);
    }

    private static void answerAll(ConcurrentLinkedQueue<HttpExchange> waiting) {
        HttpExchange e;
        while ((e = waiting.poll()) != null) {
            try (HttpExchange x = e) {
                byte[] body = "{\"id\":\"r\"}".getBytes(StandardCharsets.UTF_8);
                x.sendResponseHeaders(200, body.length);
                x.getResponseBody().write(body);
            } catch (java.io.IOException ignored) {
                // the caller gave up: it sees its own error
            }
        }
    }

    /** {@code Thread.ofVirtual().name("handler-", 0).factory()}, reached by reflection: this code compiles for JDK 17. */
    private static ThreadFactory virtualThreads() throws ReflectiveOperationException {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        Class<?> ofVirtual = Class.forName("java.lang.Thread$Builder$OfVirtual");
        builder = ofVirtual.getMethod("name", String.class, long.class).invoke(builder, "handler-", 0L);
        return (ThreadFactory) ofVirtual.getMethod("factory").invoke(builder);
    }
}
