package dev.converge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A queue's handlers run on the threads of the factory given to {@code queues(q -> q.handlerThreads(...))},
 * never more at once than the queue's concurrency; a factory that gives no thread fails the start.
 */
class HandlerThreadsTest {
    record Work(int n) {}

    static final JobType<Work> WORK = JobType.of("work", Work.class);

    @Test
    void handlersRunOnTheFactorysThreadsWithinTheQueuesConcurrency() throws Exception {
        AtomicInteger made = new AtomicInteger();
        ThreadFactory mine = r -> {
            Thread t = new Thread(r, "mine-" + made.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        Set<String> threads = ConcurrentHashMap.newKeySet();
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        CountDownLatch fourAtOnce = new CountDownLatch(4);
        CountDownLatch done = new CountDownLatch(20);
        try (Store store = Store.open(StoreConfig.newBuilder().url("jdbc:h2:mem:handler-threads;DB_CLOSE_DELAY=-1").build())) {
            store.migrate();
            try (Converge engine = Converge.builder(store).queue("default", 4)
                    .queues(q -> q.handlerThreads(mine))
                    .handle(WORK, (w, ctx) -> {
                        threads.add(Thread.currentThread().getName());
                        most.accumulateAndGet(running.incrementAndGet(), Math::max);
                        fourAtOnce.countDown();
                        fourAtOnce.await(10, TimeUnit.SECONDS); // the first four wait for each other
                        running.decrementAndGet();
                        done.countDown();
                    }).build().start()) {
                List<Job<Work>> jobs = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    jobs.add(Job.of(WORK, new Work(i)));
                }
                engine.enqueueAll(jobs);
                assertThat(done.await(30, TimeUnit.SECONDS)).as("all 20 jobs ran").isTrue();
            }
        }
        assertThat(threads).isNotEmpty().allMatch(name -> name.startsWith("mine-"));
        assertThat(most.get()).as("handlers at once").isEqualTo(4);
        assertThat(made.get()).as("threads made by the factory").isBetween(1, 4);
    }

    @Test
    void aFactoryThatGivesNoThreadFailsTheStart() {
        try (Store store = Store.open(StoreConfig.newBuilder().url("jdbc:h2:mem:no-threads;DB_CLOSE_DELAY=-1").build())) {
            store.migrate();
            Converge engine = Converge.builder(store).queue("default", 2)
                    .queues(q -> q.handlerThreads(r -> null))
                    .handle(WORK, (w, ctx) -> { }).build();
            try (engine) {
                assertThatThrownBy(engine::start).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("handler thread factory of queue default gave no thread");
            }
        }
    }

    @Test
    void noFactoryIsRefusedAtOnce() {
        try (Store store = Store.open(StoreConfig.newBuilder().url("jdbc:h2:mem:null-factory;DB_CLOSE_DELAY=-1").build())) {
            assertThatThrownBy(() -> Converge.builder(store).queues(q -> q.handlerThreads(null)))
                    .isInstanceOf(NullPointerException.class).hasMessageContaining("handler thread factory");
        }
    }
}
