package dev.converge.leafsim;

import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.converge.leafsim.fault.FaultPlan;
import dev.converge.leafsim.inventory.InventorySnapshot;
import io.javalin.Javalin;
import io.javalin.json.JavalinJackson;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * Three simulated leaf services (git host, hosting, license) on one loopback HTTP server, with
 * seeded fault injection and ground-truth inventories. Our drivers are tested against it over
 * real HTTP, and the chaos checker counts duplicates from its inventories rather than trusting
 * our own database.
 */
public final class LeafSim implements AutoCloseable {
    public static final String GITHOST = "githost";
    public static final String HOSTING = "hosting";
    public static final String LICENSE = "license";
    public static final List<String> LEAVES = List.of(GITHOST, HOSTING, LICENSE);

    private final LeafSimConfig config;
    private final FaultPlan faults;
    private final ServerClosing closing;
    private final Map<String, SimulatedLeaf> leaves = new LinkedHashMap<>();
    private final Javalin app;

    private LeafSim(LeafSimConfig config) {
        this.config = config;
        this.faults = new FaultPlan(config.seed());
        this.closing = new ServerClosing();
        ObjectMapper json = JsonMapper.builder().addModule(new JavaTimeModule())
                .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS)
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS).build();
        LeafSimParts parts = new LeafSimParts(config, faults, closing, json, config.clock(),
                new Random(config.seed()));
        for (SimulatedLeaf leaf : List.of(new GitHostLeaf(parts), new HostingLeaf(parts), new LicenseLeaf(parts))) {
            leaves.put(leaf.name(), leaf);
        }
        ControlApi control = new ControlApi(parts, leaves::get);
        this.app = Javalin.create(cfg -> {
            cfg.startup.showJavalinBanner = false;
            cfg.startup.showOldJavalinVersionWarning = false;
            cfg.jsonMapper(new JavalinJackson(json, false));
            cfg.jetty.host = config.host();
            cfg.jetty.port = config.port();
            QueuedThreadPool threads = new QueuedThreadPool(200, 8);
            threads.setName("leafsim");
            cfg.jetty.threadPool = threads;
            leaves.values().forEach(leaf -> leaf.register(new LeafRoutes(cfg.routes, leaf.name(), parts)));
            control.register(cfg.routes);
        });
    }

    /** Starts a server on the configured host and port (0: a free port). */
    public static LeafSim start(LeafSimConfig config) {
        LeafSim sim = new LeafSim(config);
        sim.app.start();
        return sim;
    }

    public int port() {
        return app.port();
    }

    /** {@code http://host:port}, without a trailing slash. */
    public String baseUrl() {
        return "http://" + config.host() + ":" + port();
    }

    /** Where a leaf's API lives, e.g. {@code http://127.0.0.1:5000/license}. */
    public String leafUrl(String leaf) {
        requireLeaf(leaf);
        return baseUrl() + "/" + leaf;
    }

    public LeafSimConfig config() {
        return config;
    }

    /** The leaf's ground truth now: current resources and every change it ever accepted. */
    public InventorySnapshot inventory(String leaf) {
        return requireLeaf(leaf).inventory().snapshot();
    }

    public FaultPlan faults() {
        return faults;
    }

    /** Releases held answers first, so closing never waits out an injected hang. */
    @Override
    public void close() {
        closing.release();
        app.stop();
    }

    private SimulatedLeaf requireLeaf(String leaf) {
        SimulatedLeaf found = leaves.get(leaf);
        if (found == null) {
            throw new IllegalArgumentException("unknown leaf '" + leaf + "', expected one of " + LEAVES);
        }
        return found;
    }

    /** Runs until the JVM is stopped; what {@code converge leafsim} calls. */
    public static void runStandalone(LeafSimConfig config) throws InterruptedException {
        LeafSim sim = start(config);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            sim.close();
            stopped.countDown();
        }, "leafsim-shutdown"));
        System.out.println("leafsim listening on " + sim.baseUrl() + " (leaves " + LEAVES + ", seed "
                + config.seed() + "); control API at " + sim.baseUrl() + "/_control");
        stopped.await();
    }

    /** {@code --port P --seed S --token T} (or {@code --token leaf=T}, repeated) {@code --control-token T}. */
    public static void main(String[] args) throws InterruptedException {
        runStandalone(LeafSimConfig.fromArgs(args));
    }
}
