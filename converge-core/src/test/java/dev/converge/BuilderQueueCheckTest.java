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
    void aHandlerOnAQueueThisNodeDoesNotWorkIsRefused() {
        Converge.Builder b = Converge.builder(store).queue("default", 2).handle(MAIL, (m, ctx) -> { });
        assertThatThrownBy(b::build).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'mail.send'").hasMessageContaining("queue 'emails'")
                .hasMessageContaining(".queue(\"emails\", n)");
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
}
