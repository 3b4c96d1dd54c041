package dev.converge.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.batch.Batch;
import dev.converge.batch.BatchState;
import dev.converge.chain.Chain;
import dev.converge.flow.Flow;
import dev.converge.flow.FlowRun;
import dev.converge.flow.FlowState;
import dev.converge.ledger.LedgerEntry;
import dev.converge.queue.Job;
import dev.converge.queue.JobState;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import dev.converge.testkit.leaf.CountingLeaf;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The runnable version of docs/flows.md: every snippet of that page is here as written (a test of
 * the engine's module checks that the page and this file agree), run on an embedded store.
 * Run it with {@code ./mvnw -pl converge-testkit -am test -Dtest=FlowGuideExample -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class FlowGuideExample {
    record Order(String id) {}
    static final JobType<Order> CHARGE = JobType.of("example.charge", Order.class)
            .withRetry(RetryPolicy.attempts(5).backoff(Duration.ofSeconds(1)).cappedAt(Duration.ofMinutes(5)))
            .withTimeout(Duration.ofSeconds(30));

    static final JobType<Order> RESERVE = JobType.of("example.reserve", Order.class);
    static final JobType<Order> PACK = JobType.of("example.pack", Order.class);
    static final JobType<Order> LABEL = JobType.of("example.label", Order.class);
    static final JobType<Order> SHIP = JobType.of("example.ship", Order.class);
    static final JobType<Order> NOTIFY = JobType.of("example.notify", Order.class);
    static final JobType<Order> ALERT = JobType.of("example.alert", Order.class);
    static final JobType<Order> CLEANUP = JobType.of("example.cleanup", Order.class);
    static final JobType<Order> REPORT = JobType.of("example.report", Order.class);

    final List<String> log = new CopyOnWriteArrayList<>();
    final CountingLeaf warehouse = CountingLeaf.uniqueByKey("warehouse.reservation");

    void charge(Order order) {
        log.add("charged " + order.id());
    }

    Converge.Builder handlers(Converge.Builder b) {
        return b.resource(warehouse)
                .handle(CHARGE, (order, ctx) -> charge(order))
                .handle(RESERVE, (order, ctx) -> {
                    LedgerEntry r = ctx.ledger().ensure(warehouse, "order-" + order.id(), Map.of());
                    log.add("reserved " + r.leafId());
                })
                .handle(SHIP, (order, ctx) -> {
                    if (ctx.cancelled()) { return; }     // or let ledger.ensure() check it for you
                    log.add("shipped " + order.id());
                })
                .handle(PACK, (order, ctx) -> log.add("packed " + order.id()))
                .handle(LABEL, (order, ctx) -> log.add("labelled " + order.id()))
                .handle(NOTIFY, (order, ctx) -> log.add("notified " + order.id()))
                .handle(ALERT, (order, ctx) -> log.add("alerted " + order.id()))
                .handle(CLEANUP, (order, ctx) -> log.add("cleaned up " + order.id()))
                .handle(REPORT, (order, ctx) -> log.add("reported " + order.id()));
    }

    @Test
    void jobs() throws Exception {
        Store store = Store.open(StoreConfig.newBuilder().url("jdbc:h2:mem:guide-jobs;DB_CLOSE_DELAY=-1").build());
        Connection callerConnection = store.dataSource().getConnection();
        callerConnection.setAutoCommit(false);
        List<Job<Order>> manyJobs = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            manyJobs.add(Job.of(CHARGE, new Order("many-" + i)));
        }

        Converge engine = Converge.builder(store)
                .queue("default", 16)                       // this node works the queue with 16 threads
                .handle(CHARGE, (order, ctx) -> charge(order))
                .build().start();

        engine.enqueue(Job.of(CHARGE, new Order("a")).delay(Duration.ofMinutes(5)).uniqueKey("charge:a"));
        engine.enqueue(callerConnection, Job.of(CHARGE, new Order("b")));   // inside your own transaction
        engine.enqueueAll(manyJobs);                                        // thousands per statement
        callerConnection.commit();
        callerConnection.close();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> log.contains("charged b") && log.contains("charged many-999"));
            long delayed = engine.enqueue(Job.of(CHARGE, new Order("a")).uniqueKey("charge:a")).jobId();
            assertThat(engine.job(delayed).orElseThrow().state()).as("the delayed job waits its five minutes")
                    .isEqualTo(JobState.AVAILABLE);
            assertThat(log).doesNotContain("charged a").hasSize(1001);
        } finally {
            engine.close();
            store.close();
        }
    }

    @Test
    void batchesChainsAndFlows() {
        Store store = Store.open(StoreConfig.newBuilder().url("jdbc:h2:mem:guide-flows;DB_CLOSE_DELAY=-1").build());
        Converge engine = handlers(Converge.builder(store).queue("default", 4)).build().start();
        Order o = new Order("42");

        long id = engine.batches().start(Batch.named("charges")
                .add(Job.of(CHARGE, new Order("a"))).add(Job.of(CHARGE, new Order("b")))
                .onSuccess(Job.of(NOTIFY, new Order("charged"))).onFailure(Job.of(ALERT, new Order("charges")))
                .onEnd(Job.of(CLEANUP, new Order("charges"))));
        engine.batches().progress(id);   // total, pending, succeeded, failed, cancelled, state

        engine.chains().start(Chain.named("fulfil")
                .then(Job.of(CHARGE, o)).then(Batch.named("pack").add(Job.of(PACK, o)).add(Job.of(LABEL, o)))
                .then(Job.of(SHIP, o))
                .onFailure(Job.of(ALERT, o)).onEnd(Job.of(CLEANUP, o)));

        FlowRun run = engine.flows().start(Flow.of("order", "order-42")
                .deadline(Duration.ofMinutes(10))
                .then(Batch.named("prepare").add(Job.of(RESERVE, o)).add(Job.of(CHARGE, o)))
                .then(Job.of(SHIP, o))
                .onSuccess(Job.of(NOTIFY, o))       // once, after the flow succeeded
                .onFailure(Job.of(REPORT, o)));     // once, after compensation finished

        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> engine.flows().get(run.flowId()).orElseThrow().state()
                    == FlowState.SUCCEEDED && log.contains("notified 42") && log.contains("notified charged")
                    && log.contains("cleaned up 42") && log.contains("cleaned up charges"));
            assertThat(engine.batches().progress(id).orElseThrow().state()).isEqualTo(BatchState.SUCCEEDED);
            assertThat(log).contains("charged a", "charged b", "packed 42", "labelled 42", "shipped 42")
                    .doesNotContain("alerted 42", "alerted charges", "reported 42");
            assertThat(log).anyMatch(line -> line.startsWith("reserved "));
            assertThat(warehouse.holdings()).containsExactly(Map.entry("order-42", 1));
        } finally {
            engine.close();
            store.close();
        }
    }
}
