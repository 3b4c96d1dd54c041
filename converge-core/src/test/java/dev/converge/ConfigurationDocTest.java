package dev.converge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.queue.JobType;
import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** docs/configuration.md: its example runs as written, and its tables name every option of the builder. */
class ConfigurationDocTest {
    private static final Path PAGE = Path.of("..", "docs", "configuration.md");

    final List<String> sent = new CopyOnWriteArrayList<>();

    void send(String email) {
        sent.add(email);
    }

    record Welcome(String email) {}

    @Test
    void thePagesExampleBuildsAnEngineWithItsOptions() throws Exception {
        JobType<Welcome> WELCOME = JobType.of("welcome", Welcome.class);
        ConfigurationDocTest mailer = this;
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Store store = Store.open(StoreConfig.newBuilder().url("jdbc:h2:mem:configuration;DB_CLOSE_DELAY=-1").build())) {
            store.migrate();
            Converge engine = Converge.builder(store)
                    .queue("default", 8)
                    .handle(WELCOME, (w, ctx) -> mailer.send(w.email()))
                    .leases(l -> l.duration(Duration.ofMinutes(2)))
                    .queues(q -> q.poll(Duration.ofMillis(500)).shutdownGrace(Duration.ofSeconds(30)))
                    .maintenance(m -> m.watchdog(Duration.ofSeconds(5)))
                    .telemetry(t -> t.metrics(registry))
                    .build();
            try (engine) {
                engine.start();
                engine.enqueue(WELCOME, new Welcome("ada@example.com"));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (sent.isEmpty() && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
            }
            assertThat(sent).containsExactly("ada@example.com");
            assertThat(registry.get("converge.jobs.enqueued").tag("type", "welcome").counter().count()).isEqualTo(1.0);
        }
    }

    @Test
    void everyOptionOfTheBuilderIsOnThePage() throws Exception {
        String page = Files.readString(PAGE);
        List<String> missing = new ArrayList<>();
        for (String option : options()) {
            if (!page.contains("`" + option)) {
                missing.add(option);
            }
        }
        assertThat(missing).as("builder options not in docs/configuration.md").isEmpty();
    }

    /** The builder's public, not deprecated methods and those of its option groups. */
    static List<String> options() {
        List<String> names = new ArrayList<>();
        List<Class<?>> types = new ArrayList<>(List.of(Converge.Builder.class));
        types.addAll(List.of(Converge.Builder.class.getDeclaredClasses()));
        for (Class<?> type : types) {
            if (!Modifier.isPublic(type.getModifiers())) {
                continue;
            }
            for (Method m : type.getDeclaredMethods()) {
                if (Modifier.isPublic(m.getModifiers()) && !m.isAnnotationPresent(Deprecated.class)
                        && !m.getName().equals("build") && !names.contains(m.getName())) {
                    names.add(m.getName());
                }
            }
        }
        return names;
    }
}
