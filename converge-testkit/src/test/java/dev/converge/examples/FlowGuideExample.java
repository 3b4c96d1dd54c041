package dev.converge.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.batch.Batch;
import dev.converge.chain.Chain;
import dev.converge.flow.Flow;
import dev.converge.flow.FlowState;
import dev.converge.ledger.LedgerEntry;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import dev.converge.testkit.leaf.CountingLeaf;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The runnable example of docs/flows.md: a batch, a chain and a flow on an embedded store.
 * Run it with {@code ./mvnw -pl converge-testkit -am test -Dtest=FlowGuideExample -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class FlowGuideExample {
    record Order(String id) {
    }

    // 1. Job types: a name, a payload class, and defaults such as the retry policy.
    static final JobType<Order> RESERVE = JobType.of("example.reserve", Order.class)
            .withRetry(RetryPolicy.attempts(5).backoff(Duration.ofMillis(50)));
    static final JobType<Order> CHARGE = JobType.of("example.charge", Order.class);
    static final JobType<Order> SHIP = JobType.of("example.ship", Order.class);
    static final JobType<Order> NOTIFY = JobType.of("example.notify", Order.class);

    final List<String> log = new CopyOnWriteArrayList<>();
    final CountingLeaf warehouse = CountingLeaf.uniqueByKey("warehouse.reservation");

    @Test
    void batchesChainsAndFlows() {
        try (Store store = Store.open(StoreConfig.newBuilder().url("jdbc:h2:mem:guide;DB_CLOSE_DELAY=-1").build())) {
            Converge e = Converge.builder(store)
                    .queue("default", 4)
                    .resource(warehouse)
                    .handle(RESERVE, (order, ctx) -> {
                        // 2. An external create goes through the ledger: exactly once per natural key.
                        LedgerEntry r = ctx.ledger().ensure(ctx, warehouse, "order-" + order.id(), Map.of());
                        log.add("reserved " + r.leafId());
                    })
                    .handle(CHARGE, (order, ctx) -> log.add("charged " + order.id()))
                    .handle(SHIP, (order, ctx) -> log.add("shipped " + order.id()))
                    .handle(NOTIFY, (order, ctx) -> log.add("notified " + order.id()))
                    .build()
                    .start();

            // 3. A batch: jobs in parallel, fail-fast, callbacks once.
            e.batches().dispatch(Batch.named("charges")
                    .add(Job.of(CHARGE, new Order("a"))).add(Job.of(CHARGE, new Order("b")))
                    .then(Job.of(NOTIFY, new Order("all charged"))));

            // 4. A chain: links one after another; a link may be a whole batch.
            e.chains().dispatch(Chain.named("fulfil c").then(Job.of(CHARGE, new Order("c")))
                    .then(Job.of(SHIP, new Order("c"))));

            // 5. A flow: a chain of steps for one subject, with a deadline; its ledger entries are torn
            //    down in reverse if it fails, and only then is onFailure run.
            long flow = e.flows().start(Flow.of("order", "order-d")
                    .deadline(Duration.ofMinutes(1))
                    .step(Batch.named("prepare").add(Job.of(RESERVE, new Order("d"))).add(Job.of(CHARGE, new Order("d"))))
                    .step(Job.of(SHIP, new Order("d")))
                    .onSuccess(Job.of(NOTIFY, new Order("d shipped")))
                    .onFailure(Job.of(NOTIFY, new Order("d failed")))).flowId();

            await().atMost(Duration.ofSeconds(20)).until(() -> e.flows().get(flow).orElseThrow().state() == FlowState.SUCCEEDED
                    && log.contains("notified d shipped") && log.contains("notified all charged") && log.contains("shipped c"));
            assertThat(log.indexOf("shipped c")).isGreaterThan(log.indexOf("charged c"));
            assertThat(warehouse.holdings()).containsExactly(Map.entry("order-d", 1));
            e.close();
        }
    }
}
