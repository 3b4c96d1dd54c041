package dev.converge.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.store.Store;
import dev.converge.testkit.ScratchDatabase;
import dev.converge.testkit.TestStores;
import dev.converge.time.EngineClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SmokeTest {
    record Ping(int n) {
    }

    static final JobType<Ping> PING = JobType.of("ping", Ping.class);

    @Test
    void h2() {
        try (Store store = TestStores.h2(true, EngineClock.database())) {
            run(store);
        }
    }

    @Test
    void postgres() {
        try (ScratchDatabase db = ScratchDatabase.create("cv_smoke");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 8)) {
            run(store);
        }
    }

    private void run(Store store) {
        AtomicInteger sum = new AtomicInteger();
        try (Converge engine = Converge.builder(store).handle(PING, (p, ctx) -> sum.addAndGet(p.n())).queue("default", 4).build()) {
            engine.start();
            for (int i = 1; i <= 100; i++) {
                engine.enqueue(PING, new Ping(i));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> sum.get() == 5050);
            await().atMost(Duration.ofSeconds(10)).until(() -> engine.stats().succeeded() == 100);
        }
    }
}
