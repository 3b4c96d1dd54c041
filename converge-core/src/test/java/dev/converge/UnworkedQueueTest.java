package dev.converge;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A job enqueued on a queue that no live node works would wait without a word: the enqueuing node
 * warns, once per queue, with the queues the fleet works and the line that would work it.
 */
class UnworkedQueueTest {
    record Note(String text) {}

    static final JobType<Note> NOTE = JobType.of("note", Note.class);

    @Test
    void aJobOnAQueueNoNodeWorksIsWarnedAboutOnce() {
        Logger logger = (Logger) LoggerFactory.getLogger(Converge.class);
        ListAppender<ILoggingEvent> seen = new ListAppender<>();
        seen.start();
        logger.addAppender(seen);
        try (Store store = Store.open(StoreConfig.newBuilder().url("jdbc:h2:mem:unworked;DB_CLOSE_DELAY=-1").build());
                Converge engine = Converge.builder(store).queue("default", 1).handle(NOTE, (n, ctx) -> { }).build().start()) {
            engine.enqueue(Job.of(NOTE, new Note("worked")));
            engine.enqueue(Job.of(NOTE, new Note("lost")).queue("mail"));
            engine.enqueue(Job.of(NOTE, new Note("lost again")).queue("mail"));
        } finally {
            logger.detachAppender(seen);
        }
        List<String> warnings = seen.list.stream().filter(e -> e.getLevel() == Level.WARN)
                .map(ILoggingEvent::getFormattedMessage).filter(m -> m.contains("no live node works")).toList();
        assertThat(warnings).hasSize(1);
        assertThat(warnings.get(0)).contains("'mail'").contains("[default]").contains(".queue(\"mail\", n)")
                .contains("'note'");
    }
}
