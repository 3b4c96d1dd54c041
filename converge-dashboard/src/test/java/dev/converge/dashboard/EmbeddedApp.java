package dev.converge.dashboard;

import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.flow.Flow;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import dev.converge.store.Store;
import dev.converge.testkit.ScratchDatabase;
import dev.converge.testkit.TestStores;
import dev.converge.testkit.leaf.CountingLeaf;
import dev.converge.time.EngineClock;
import io.javalin.Javalin;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An application that is not ours: a bare Javalin app over an engine on a fresh PostgreSQL
 * database, with one job type that fails, a three-step order flow whose last step fails (its two
 * earlier steps registered their undo), a leaf, and the dashboard mounted at {@code /ops/dashboard}
 * with a page of the app's own ("hello"). One operator token, {@link #TOKEN}.
 */
final class EmbeddedApp implements AutoCloseable {
    static final String TOKEN = "the-operators-token";
    static final String MOUNT = "/ops/dashboard";

    record Order(String step) {
    }

    static final JobType<Order> CHARGE = JobType.of("shop.charge", Order.class).withRetry(RetryPolicy.never());
    static final JobType<Order> STEP = JobType.of("shop.step", Order.class).withRetry(RetryPolicy.never());
    static final JobType<Order> UNDO = JobType.of("shop.undo", Order.class);
    static final JobType<dev.converge.recurring.Occurrence> NIGHTLY = JobType.of("shop.nightly-report",
            dev.converge.recurring.Occurrence.class);
    final java.util.concurrent.atomic.AtomicInteger nightlyRuns = new java.util.concurrent.atomic.AtomicInteger();

    final ScratchDatabase db;
    final Store store;
    final Converge engine;
    final CountingLeaf leaf = CountingLeaf.uniqueByKey("shop.box");
    /** While true, the orphans page's leaf cannot be listed (its service is down). */
    volatile boolean leafDown;
    private final dev.converge.ledger.ResourceType unreachable = new dev.converge.ledger.ResourceType() {
        @Override
        public String kind() {
            return leaf.kind();
        }

        @Override
        public dev.converge.ledger.RepetitionSafety createSafety() {
            return leaf.createSafety();
        }

        @Override
        public dev.converge.ledger.LeafResource create(dev.converge.ledger.CreateRequest request) {
            throw new IllegalStateException("connection refused: shop.box is down");
        }

        @Override
        public void delete(dev.converge.ledger.LeafResource resource) {
            throw new IllegalStateException("connection refused: shop.box is down");
        }

        @Override
        public List<dev.converge.ledger.LeafResource> list() {
            throw new IllegalStateException("connection refused: shop.box is down");
        }
    };
    final List<String> undone = new CopyOnWriteArrayList<>();
    /** Every run of a charge, by what it charged. */
    final List<String> charges = new CopyOnWriteArrayList<>();
    final Javalin app;

    EmbeddedApp() {
        db = ScratchDatabase.create("cv_dash_embed");
        store = TestStores.postgres(db, true, EngineClock.database(), 8);
        Converge[] self = new Converge[1];
        engine = Converge.builder(store).queue("default", 2).queues(q -> q.poll(Duration.ofMillis(100))).resource(leaf)
                .handle(CHARGE, (p, ctx) -> {
                    charges.add(p.step());
                    throw new IllegalStateException("the card service is down: " + p.step());
                })
                .handle(STEP, (p, ctx) -> {
                    if (p.step().equals("ship")) {
                        throw new IllegalStateException("no courier takes this parcel");
                    }
                    ctx.flows().compensateWith(Job.of(UNDO, new Order("undo " + p.step())));
                })
                .handle(UNDO, (p, ctx) -> undone.add(p.step()))
                .handle(NIGHTLY, (o, ctx) -> nightlyRuns.incrementAndGet())
                .recurring(dev.converge.recurring.RecurringJob.of(NIGHTLY,
                        dev.converge.recurring.Schedule.every(Duration.ofHours(6))))
                .build();
        self[0] = engine;
        engine.start();
        Dashboard dashboard = Dashboard.builder(engine)
                .operators(token -> TOKEN.equals(token) ? Optional.of(new Dashboard.Operator("ops-1", null)) : Optional.empty())
                .resources(() -> leafDown ? List.of(unreachable) : List.of(leaf))
                .page(new Dashboard.Page("hello", "Hello", ctx -> ctx.contentType("application/json")
                        .result("{\"operator\":\"" + Dashboard.operator(ctx).id() + "\"}"), "test-app/hello.js"))
                .build();
        app = Javalin.create(cfg -> {
            cfg.startup.showJavalinBanner = false;
            cfg.jetty.host = "127.0.0.1";
            cfg.jetty.port = 0;
            dashboard.mount(cfg, MOUNT);
        }).start();
    }

    String base() {
        return "http://127.0.0.1:" + app.port() + MOUNT;
    }

    /** A job that fails for good at once; its id, once it has. */
    long failedJob(String what) {
        long id = engine.enqueue(Job.of(CHARGE, new Order(what))).jobId();
        await().atMost(Duration.ofSeconds(20)).until(() -> engine.job(id).orElseThrow().state().sql().equals("failed"));
        return id;
    }

    /** The order flow: reserve, pack, ship; ship fails, so pack's undo runs, then reserve's. Its id, once failed. */
    long failedFlow(String order) {
        long id = engine.flows().start(Flow.of("order", order).then(Job.of(STEP, new Order("reserve")))
                .then(Job.of(STEP, new Order("pack"))).then(Job.of(STEP, new Order("ship")))).flowId();
        await().atMost(Duration.ofSeconds(30)).until(() -> engine.flows().get(id).orElseThrow().state().sql().equals("failed"));
        return id;
    }

    /** A ledger entry the leaf answered ambiguously; its id. */
    long uncertainEntry(String key) {
        return insert("INSERT INTO cv_ledger (kind, natural_key, subject, state, safety, created_at, updated_at) VALUES"
                + " (?, ?, ?, 'uncertain', 'idempotent_by_constraint', ?, ?)", leaf.kind(), key, "order-" + key, NOW, NOW);
    }

    /** A token whose use started and whose outcome nobody knows (its owner gone); its id. */
    long tokenOfUnknownUse(String pool, String value) {
        return insert("INSERT INTO cv_token (pool, token, state, checked_out_at, used_at, created_at) VALUES"
                + " (?, ?, 'checked_out', ?, ?, ?)", pool, value, NOW, NOW, NOW);
    }

    /** Stands for the current time among {@link #insert}'s values. */
    private static final Object NOW = new Object();

    private long insert(String sql, Object... values) {
        return store.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement(sql, new String[] {"id"})) {
                OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
                for (int i = 0; i < values.length; i++) {
                    ps.setObject(i + 1, values[i] == NOW ? now : values[i]);
                }
                ps.executeUpdate();
                try (var rs = ps.getGeneratedKeys()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
    }

    /** A box at the leaf tagged as ours that no ledger entry owns (a crash between create and confirm left it). */
    String orphan(String key) {
        return leaf.plant(key, engine.ledger().tagFor("order-" + key)).leafId();
    }

    Map<String, Integer> holdings() {
        return leaf.holdings();
    }

    @Override
    public void close() {
        app.stop();
        engine.close();
        store.close();
        db.close();
    }
}
