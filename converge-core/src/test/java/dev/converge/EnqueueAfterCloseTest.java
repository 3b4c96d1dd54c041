package dev.converge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.queue.EnqueueResult;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An engine that has stopped enqueues nothing more, and says so with what to do; a handler still
 * running in the shutdown grace may enqueue its follow-up work as usual.
 */
class EnqueueAfterCloseTest {
    record Note(String text) {}

    static final JobType<Note> NOTE = JobType.of("note", Note.class);
    static final JobType<Note> SLOW = JobType.of("slow", Note.class);

    @Test
    void enqueueAfterCloseIsRefusedWithWhatToDo() {
        try (Store store = Store.open(StoreConfig.newBuilder().url("jdbc:h2:mem:after-close;DB_CLOSE_DELAY=-1").build())) {
            store.migrate();
            Converge engine = Converge.builder(store).queue("default", 1).handle(NOTE, (n, ctx) -> { }).build().start();
            engine.close();
            assertThatThrownBy(() -> engine.enqueue(NOTE, new Note("late")))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed")
                    .hasMessageContaining("an engine that is running");
            int notes = store.withConnection(c -> {
                try (var rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM cv_job WHERE kind = 'note'")) {
                    rs.next();
                    return rs.getInt(1);
                }
            });
            assertThat(notes).as("nothing reached the database").isZero();
        }
    }

    @Test
    void aHandlerInTheShutdownGraceStillEnqueues() throws Exception {
        try (Store store = Store.open(StoreConfig.newBuilder().url("jdbc:h2:mem:in-grace;DB_CLOSE_DELAY=-1").build())) {
            store.migrate();
            CountDownLatch running = new CountDownLatch(1);
            CountDownLatch closing = new CountDownLatch(1);
            CompletableFuture<EnqueueResult> followUp = new CompletableFuture<>();
            Converge engine = Converge.builder(store).queue("default", 1)
                    .queues(q -> q.shutdownGrace(Duration.ofSeconds(10)))
                    .declare(NOTE)
                    .handle(SLOW, (n, ctx) -> {
                        running.countDown();
                        closing.await(10, TimeUnit.SECONDS);
                        try {
                            followUp.complete(ctx.enqueue(Job.of(NOTE, new Note("follow-up"))));
                        } catch (RuntimeException e) {
                            followUp.completeExceptionally(e);
                        }
                    })
                    .build().start();
            engine.enqueue(SLOW, new Note("slow"));
            assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
            Thread closer = new Thread(engine::close);
            closer.start();
            Thread.sleep(200); // close() is draining: fetching stopped, the handler is in its grace
            closing.countDown();
            closer.join(20_000);
            assertThat(followUp.get(5, TimeUnit.SECONDS).duplicate()).isFalse();
        }
    }
}
