package dev.converge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.queue.JobType;
import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A handler on a queue this node does not work would wait forever in silence: build() says so instead. */
class BuilderQueueCheckTest {
    record Mail(String to) {
    }

    static final JobType<Mail> MAIL = JobType.of("mail.send", Mail.class).withQueue("emails");

    Store store;

    @BeforeEach
    void open() {
        store = Store.open(StoreConfig.newBuilder().url("jdbc:h2:mem:queuecheck;DB_CLOSE_DELAY=-1").build());
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void aHandlerOnANodeThatWorksOtherQueuesIsBuiltAndRunsJobsRoutedThere() {
        // the type's own queue is not worked here, but a job routed to a worked queue must still run
        java.util.List<String> sent = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (Converge node = Converge.builder(store).queue("default", 1).handle(MAIL, (m, ctx) -> sent.add(m.to())).build().start()) {
            node.enqueue(dev.converge.queue.Job.of(MAIL, new Mail("ada@example.org")).queue("default"));
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> sent.size() == 1);
            assertThat(sent).containsExactly("ada@example.org");
        }
    }

    @Test
    void aHandlerOnANodeThatWorksNoQueueIsRefused() {
        Converge.Builder b = Converge.builder(store).handle(MAIL, (m, ctx) -> { });
        assertThatThrownBy(b::build).isInstanceOf(IllegalStateException.class).hasMessageContaining("queue 'emails'");
    }

    @Test
    void aNodeThatWorksTheQueueOrOnlyDeclaresTheTypeIsBuilt() {
        try (Converge worker = Converge.builder(store).queue("emails", 1).handle(MAIL, (m, ctx) -> { }).build();
                Converge producer = Converge.builder(store).declare(MAIL).build()) {
            assertThat(worker.nodeId()).isNotBlank();
            assertThat(producer.nodeId()).isNotBlank();
        }
    }

    @Test
    void theSameHandlerMayBeRegisteredTwiceButATypeHasOneHandler() {
        dev.converge.handler.JobHandler<Mail> send = (m, ctx) -> { };
        Converge.Builder b = Converge.builder(store).queue("emails", 1).handle(MAIL, send).handle(MAIL, send);
        assertThatThrownBy(() -> b.handle(MAIL, (m, ctx) -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("already has a handler");
    }
}
