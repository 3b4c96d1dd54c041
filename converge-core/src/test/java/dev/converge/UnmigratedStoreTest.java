package dev.converge;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.queue.JobType;
import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import org.junit.jupiter.api.Test;

/** An engine started on a database without its tables says so, and what to run. */
class UnmigratedStoreTest {
    record Note(String text) {}

    static final JobType<Note> NOTE = JobType.of("note", Note.class);

    @Test
    void startingWithoutTheTablesSaysToMigrate() {
        try (Store store = Store.open(StoreConfig.newBuilder().url("jdbc:h2:mem:unmigrated;DB_CLOSE_DELAY=-1").migrate(false).build())) {
            assertThatThrownBy(() -> Converge.builder(store).queue("default", 1).handle(NOTE, (n, ctx) -> { })
                    .build().start().close())
                    .hasMessageContaining("store.migrate()")
                    .hasMessageContaining("migrationLocation()");
        }
    }
}
