package dev.converge;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.converge.queue.JobState;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Every retry of a failed attempt is logged once, at INFO, with the attempt, the error's first line and when it runs again. */
class RetryLogTest {
    record Ping(String id) {
    }

    static final JobType<Ping> FLAKY = JobType.of("retrylog.flaky", Ping.class)
            .withRetry(RetryPolicy.attempts(3).backoff(Duration.ofMillis(50)).jitter(0));

    @Test
    void eachRetryIsLoggedWithItsAttemptErrorAndNextRun() {
        Logger logger = (Logger) LoggerFactory.getLogger("dev.converge.queue.internal.Completer");
        ListAppender<ILoggingEvent> seen = new ListAppender<>();
        seen.start();
        logger.addAppender(seen);
        AtomicInteger runs = new AtomicInteger();
        try (Store store = Store.open(StoreConfig.newBuilder().url("jdbc:h2:mem:retrylog;DB_CLOSE_DELAY=-1").build());
                Converge engine = Converge.builder(store).queue("default", 1).queues(q -> q.poll(Duration.ofMillis(50)))
                        .handle(FLAKY, (p, ctx) -> {
                            if (runs.incrementAndGet() < 3) {
                                throw new IllegalStateException("leaf answered 503\n\tat some.Frame(Frame.java:1)");
                            }
                        })
                        .build().start()) {
            long id = engine.enqueue(FLAKY, new Ping("1")).jobId();
            Awaitility.await().atMost(Duration.ofSeconds(20))
                    .until(() -> engine.job(id).map(j -> j.state() == JobState.SUCCEEDED).orElse(false));
        } finally {
            logger.detachAppender(seen);
        }
        List<ILoggingEvent> retries = seen.list.stream()
                .filter(e -> e.getFormattedMessage().contains("retrying in")).toList();
        assertThat(retries).hasSize(2).allSatisfy(e -> {
            assertThat(e.getLevel()).isEqualTo(Level.INFO);
            assertThat(e.getFormattedMessage()).contains("retrylog.flaky").contains("leaf answered 503")
                    .doesNotContain("some.Frame");
        });
        assertThat(retries.get(0).getFormattedMessage()).contains("attempt 1 of 3");
        assertThat(retries.get(1).getFormattedMessage()).contains("attempt 2 of 3");
    }
}
