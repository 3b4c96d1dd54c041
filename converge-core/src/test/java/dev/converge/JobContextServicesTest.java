package dev.converge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.ledger.LeafResource;
import dev.converge.ledger.LedgerEntry;
import dev.converge.ledger.LedgerState;
import dev.converge.ledger.RepetitionSafety;
import dev.converge.ledger.ResourceType;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A handler reaches the ledger, flows, tokens and the queue through its context, never through its engine. */
class JobContextServicesTest {
    record Order(String id) {
    }

    static final JobType<Order> CHARGE = JobType.of("ctx.charge", Order.class);
    static final JobType<Order> SHIP = JobType.of("ctx.ship", Order.class);

    @Test
    void aStepEnsuresAResourceAndEnqueuesTheNextThroughItsContext() throws Exception {
        AtomicInteger creates = new AtomicInteger();
        ResourceType payments = ResourceType.named("ctx.payment")
                .createdBy(RepetitionSafety.IDEMPOTENT_BY_KEY,
                        r -> new LeafResource("pay-" + creates.incrementAndGet(), r.naturalKey(), r.tag(), Map.of()))
                .deletedBy(resource -> { })
                .build();
        List<String> shipped = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(1);
        try (Store store = Store.open(StoreConfig.newBuilder().url("jdbc:h2:mem:ctxservices;DB_CLOSE_DELAY=-1").build());
                Converge engine = Converge.builder(store).queue("default", 2).resource(payments)
                        .handle(CHARGE, (o, ctx) -> {
                            LedgerEntry e = ctx.ledger().ensure(payments, "charge-" + o.id(), "order-" + o.id(), Map.of());
                            assertThat(e.state()).isEqualTo(LedgerState.CONFIRMED);
                            assertThat(ctx.flows()).isNotNull();
                            assertThat(ctx.tokens()).isNotNull();
                            ctx.enqueue(Job.of(SHIP, o));
                        })
                        .handle(SHIP, (o, ctx) -> {
                            shipped.add(o.id());
                            done.countDown();
                        })
                        .build().start()) {
            engine.enqueue(CHARGE, new Order("7"));
            assertThat(done.await(20, TimeUnit.SECONDS)).isTrue();
            assertThat(shipped).containsExactly("7");
            assertThat(creates.get()).isEqualTo(1);
            assertThat(engine.ledger().entry("ctx.payment", "charge-7")).map(LedgerEntry::leafId).contains("pay-1");
        }
    }

    @Test
    void anEnsureWithoutASubjectOutsideAFlowIsRefusedOnceAndSaysWhatToCall() throws Exception {
        ResourceType payments = ResourceType.named("ctx.payment2")
                .createdBy(RepetitionSafety.IDEMPOTENT_BY_KEY, r -> {
                    throw new AssertionError("the leaf must not be called for a refused ensure");
                })
                .deletedBy(resource -> { })
                .build();
        AtomicInteger runs = new AtomicInteger();
        try (Store store = Store.open(StoreConfig.newBuilder().url("jdbc:h2:mem:ctxrefused;DB_CLOSE_DELAY=-1").build());
                Converge engine = Converge.builder(store).queue("default", 2).resource(payments)
                        .handle(CHARGE, (o, ctx) -> {
                            runs.incrementAndGet();
                            ctx.ledger().ensure(payments, "charge-" + o.id(), Map.of());
                        })
                        .build().start()) {
            long id = engine.enqueue(CHARGE, new Order("8")).jobId();
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20))
                    .until(() -> engine.job(id).map(j -> j.state() == dev.converge.queue.JobState.FAILED).orElse(false));
            dev.converge.queue.JobRow job = engine.job(id).orElseThrow();
            assertThat(job.attempt()).isEqualTo(1);
            assertThat(runs.get()).isEqualTo(1);
            assertThat(job.lastError()).contains("not part of a flow")
                    .contains("ensure(type, naturalKey, subject, params)");
        }
    }
}
