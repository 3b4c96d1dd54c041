package dev.converge.flow;

import dev.converge.Converge;
import dev.converge.store.Store;
import dev.converge.fixture.ScratchDatabase;
import dev.converge.fixture.TestStores;
import dev.converge.time.EngineClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A store of the named kind plus engines over it, closed together. Kinds: "h2", "h2-manual-commit",
 * "postgres".
 */
public final class Harness implements AutoCloseable {
    private final ScratchDatabase db;
    private final Store store;
    private final List<Converge> engines = new ArrayList<>();
    private final List<Store> extraStores = new ArrayList<>();

    /** The schema of kind {@code postgres-schema}: the engine's tables apart from the application's. */
    public static final String SCHEMA = "converge_engine";

    public Harness(String kind) {
        this(kind, EngineClock.database());
    }

    public Harness(String kind, EngineClock clock) {
        switch (kind) {
            case "h2" -> {
                db = null;
                store = TestStores.h2(true, clock);
            }
            case "h2-manual-commit" -> {
                db = null;
                store = TestStores.h2(false, clock);
            }
            case "postgres" -> {
                db = ScratchDatabase.create("cv_flow");
                store = TestStores.postgres(db, true, clock, 12);
            }
            case "postgres-schema" -> {
                db = ScratchDatabase.create("cv_flow");
                store = TestStores.postgresInSchema(db, clock, SCHEMA);
            }
            default -> throw new IllegalArgumentException(kind);
        }
    }

    public Store store() {
        return store;
    }

    /** A second store over the same database (PostgreSQL: a separate pool, as another process would have). */
    public Store anotherStore() {
        if (db == null) {
            return store;
        }
        Store s = Store.open(store.config().toBuilder().maxPoolSize(8).build()); // the same database and schema
        extraStores.add(s);
        return s;
    }

    /** An engine with test-friendly timings, customised by the caller, started. */
    public Converge engine(Consumer<Converge.Builder> customise) {
        return engine(store, customise);
    }

    public Converge engine(Store on, Consumer<Converge.Builder> customise) {
        Converge.Builder b = Converge.builder(on)
                .leases(l -> l.duration(Duration.ofSeconds(5))
                        .rescue(Duration.ofMillis(200)))
                .queues(q -> q.poll(Duration.ofMillis(50))
                        .shutdownGrace(Duration.ofSeconds(2)))
                .ledger(g -> g.compensationRetry(dev.converge.queue.RetryPolicy.attempts(3).backoff(Duration.ofMillis(50))
                        .cappedAt(Duration.ofMillis(200))));
        customise.accept(b);
        Converge engine = b.build();
        engines.add(engine);
        return engine.start();
    }

    @Override
    public void close() {
        // every part is closed even if an earlier one fails, so a scratch database is never left behind
        RuntimeException first = null;
        List<AutoCloseable> parts = new ArrayList<>(engines);
        parts.addAll(extraStores);
        parts.add(store);
        if (db != null) {
            parts.add(db);
        }
        for (AutoCloseable part : parts) {
            try {
                part.close();
            } catch (Exception e) {
                if (first == null) {
                    first = e instanceof RuntimeException r ? r : new IllegalStateException(e);
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
