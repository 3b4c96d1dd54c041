package dev.converge.contract;

import dev.converge.store.internal.Dialects;
import dev.converge.Converge;
import dev.converge.queue.JobRow;
import dev.converge.queue.JobState;
import dev.converge.queue.internal.JobStore;
import dev.converge.store.Store;
import dev.converge.fixture.SettableClock;
import dev.converge.time.EngineClock;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;

/**
 * What one contract test works with: a settable clock, stores opened through the
 * implementation's factory (each one a pool of its own on the same database), engines built on
 * them, and helpers to read jobs back. Everything it opened is closed after the test, engines
 * first, so no worker outlives its test.
 */
public final class ContractFixture implements AutoCloseable {
    /** Leases in the contract are long by the settable clock, so only moving the clock expires them. */
    public static final Duration LEASE = Duration.ofSeconds(30);

    private final Function<EngineClock, Store> factory;
    private final SettableClock clock = new SettableClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    private final List<Store> stores = new ArrayList<>();
    private final List<Converge> engines = new ArrayList<>();
    private Store store;

    ContractFixture(Function<EngineClock, Store> factory) {
        this.factory = factory;
    }

    public SettableClock clock() {
        return clock;
    }

    /** The test's store on the settable clock, emptied of jobs and claims when first opened. */
    public Store store() {
        if (store == null) {
            store = openAnotherStore();
            empty(store);
        }
        return store;
    }

    /** Another pool on the same database and clock: what a second node would have. */
    public Store openAnotherStore() {
        Store s = factory.apply(clock);
        stores.add(s);
        return s;
    }

    public JobStore jobs() {
        return new JobStore(Dialects.forUrl(store().config().url(), store().config().schema()));
    }

    /**
     * A builder on the test's store with timings fit for tests: short poll and rescue intervals,
     * a lease of {@link #LEASE} by the settable clock and a heartbeat rarely reached in real time.
     */
    public Converge.Builder builder() {
        return builder(store());
    }

    public Converge.Builder builder(Store on) {
        return Converge.builder(on).leases(l -> l.duration(LEASE).heartbeat(Duration.ofSeconds(10))
                        .rescue(Duration.ofMillis(100))).queues(q -> q.poll(Duration.ofMillis(100)).shutdownGrace(Duration.ofSeconds(5)));
    }

    /** Builds an engine, closed after the test; started unless the caller says otherwise. */
    public Converge engine(UnaryOperator<Converge.Builder> configure) {
        Converge engine = configure.apply(builder()).build();
        engines.add(engine);
        return engine.start();
    }

    public Converge engineOn(Store on, UnaryOperator<Converge.Builder> configure) {
        Converge engine = configure.apply(builder(on)).build();
        engines.add(engine);
        return engine.start();
    }

    /** An engine that only enqueues: it works no queue. */
    public Converge producer(UnaryOperator<Converge.Builder> configure) {
        Converge engine = configure.apply(builder()).build();
        engines.add(engine);
        return engine;
    }

    public JobRow job(long id) {
        return store().withConnection(c -> jobs().get(c, id)).orElseThrow(() -> new AssertionError("no job " + id));
    }

    public java.util.Optional<JobRow> findJob(long id) {
        return store().withConnection(c -> jobs().get(c, id));
    }

    public JobRow awaitState(long id, JobState state) {
        await().until(() -> job(id).state() == state);
        return job(id);
    }

    public static ConditionFactory await() {
        return Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(10));
    }

    /** Runs SQL of the test's own (business tables, direct inserts) on the test's store. */
    public void sql(String... statements) {
        store().withConnection(c -> {
            try (Statement st = c.createStatement()) {
                for (String s : statements) {
                    st.execute(store().expand(s));
                }
            }
            return null;
        });
    }

    private static void empty(Store s) {
        s.inTransaction(c -> {
            deleteAll(c, s.expand("cv_claim"));
            deleteAll(c, s.expand("cv_job"));
            deleteAll(c, s.expand("cv_node"));
            return null;
        });
    }

    private static void deleteAll(Connection c, String table) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.executeUpdate("DELETE FROM " + table);
        }
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        for (Converge e : engines) {
            try {
                e.close();
            } catch (RuntimeException ex) {
                failure = ex;
            }
        }
        for (Store s : stores) {
            try {
                s.close();
            } catch (RuntimeException ex) {
                failure = ex;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
