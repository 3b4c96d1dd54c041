package dev.converge.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.queue.Job;
import dev.converge.queue.JobRow;
import dev.converge.queue.JobState;
import dev.converge.queue.JobType;
import dev.converge.testkit.leaf.CountingLeaf;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The recipes of docs/testing.md, as the page shows them: a handler's retry and a ledger-guarded step. */
class TestingGuideTest {
    record Welcome(String email) {}

    record Order(String id) {}

    static final JobType<Welcome> SEND_WELCOME = JobType.of("send-welcome", Welcome.class);
    static final JobType<Order> CHARGE = JobType.of("charge", Order.class);

    /** A mail sender that fails as many times as it is told to, then sends. */
    static final class FakeMailer {
        final List<String> sent = new CopyOnWriteArrayList<>();
        final AtomicInteger failures = new AtomicInteger();

        void failNext(int times) {
            failures.set(times);
        }

        void send(String email) {
            if (failures.getAndDecrement() > 0) {
                throw new IllegalStateException("smtp: 421 try again later");
            }
            sent.add(email);
        }
    }

    @Test
    void aFailedSendIsRetriedAfterItsBackoff() {
        FakeMailer mailer = new FakeMailer();
        try (SyncHarness h = SyncHarness.h2(b -> b.queue("default", 2)
                .handle(SEND_WELCOME, (w, ctx) -> mailer.send(w.email())))) {
            mailer.failNext(1);
            JobRow first = h.work(Job.of(SEND_WELCOME, new Welcome("ada@example.com")));
            assertThat(first.state()).isEqualTo(JobState.AVAILABLE);    // failed once, waiting out its backoff
            assertThat(mailer.sent).isEmpty();
            h.advance(Duration.ofMinutes(1));                           // the harness's clock, not a sleep
            assertThat(h.state(first.id())).isEqualTo(JobState.SUCCEEDED);
            assertThat(mailer.sent).containsExactly("ada@example.com");
        }
    }

    @Test
    void aGuardedChargeRunTwiceChargesOnce() {
        CountingLeaf payments = CountingLeaf.byIdempotencyKey("payment");
        try (SyncHarness h = SyncHarness.h2(b -> b.queue("default", 2).resource(payments)
                .handle(CHARGE, (o, ctx) -> ctx.ledger().ensure(payments, "order-" + o.id(), "customer-7", Map.of())))) {
            h.work(Job.of(CHARGE, new Order("42")));
            h.work(Job.of(CHARGE, new Order("42")));                    // delivered again, as a queue may
            assertThat(payments.createsOf("order-42")).isEqualTo(1);
            assertThat(h.engine().ledger().entry("payment", "order-42")).isPresent();
        }
    }
}
