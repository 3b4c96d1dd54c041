package dev.converge.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.queue.internal.HistoryRecorder;
import dev.converge.store.Store;
import dev.converge.fixture.ScratchDatabase;
import dev.converge.fixture.SettableClock;
import dev.converge.fixture.TestStores;
import dev.converge.time.EngineClock;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A queue's history adds up over the fleet: what every node's deliveries did (succeeded, failed,
 * retried, how long jobs waited and ran) and the depth the leader sampled, in steps that suit the
 * span; a row a node could not write is carried by its next one, and rows older than seven days go.
 */
class QueueHistoryTest {
    record Work(int n) {
    }

    static final JobType<Work> FINE = JobType.of("history.fine", Work.class);
    static final JobType<Work> FLAKY = JobType.of("history.flaky", Work.class)
            .withRetry(RetryPolicy.attempts(3).backoff(Duration.ofMillis(10)));
    static final JobType<Work> BROKEN = JobType.of("history.broken", Work.class)
            .withRetry(RetryPolicy.attempts(1));
    static final JobType<Work> SLOW = JobType.of("history.slow", Work.class).withQueue("slow");
    static final JobType<Work> LATER = JobType.of("history.later", Work.class).withQueue("later");

    @Test
    void onH2() throws Exception {
        try (Store store = TestStores.h2(true, EngineClock.database())) {
            addsUpOverTheFleet(store);
        }
    }

    @Test
    void onPostgres() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_history");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 8)) {
            addsUpOverTheFleet(store);
        }
    }

    private static Converge node(Store store, String id, AtomicInteger flakyRuns) {
        return Converge.builder(store).nodeId(id).queues(q -> q.poll(Duration.ofMillis(50)))
                .handle(FINE, (w, ctx) -> { })
                .handle(FLAKY, (w, ctx) -> {
                    if (flakyRuns.incrementAndGet() % 2 == 1) {
                        throw new IllegalStateException("not yet");
                    }
                })
                .handle(BROKEN, (w, ctx) -> {
                    throw new IllegalStateException("never");
                })
                .handle(SLOW, (w, ctx) -> Thread.sleep(300))
                .declare(LATER).queue("default", 2).queue("slow", 2).build();
    }

    private static void addsUpOverTheFleet(Store store) throws Exception {
        AtomicInteger flakyRuns = new AtomicInteger();
        try (Converge a = node(store, "node-a", flakyRuns).start();
                Converge b = node(store, "node-b", flakyRuns).start()) {
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                ids.add(a.enqueue(FINE, new Work(i)).jobId());
            }
            for (int i = 0; i < 4; i++) {
                ids.add(a.enqueue(BROKEN, new Work(i)).jobId());
                ids.add(b.enqueue(SLOW, new Work(i)).jobId());
            }
            ids.add(a.enqueue(FLAKY, new Work(1)).jobId());
            for (int i = 0; i < 7; i++) {
                a.enqueue(LATER, new Work(i)); // a queue nobody works: its depth grows
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> ids.stream()
                    .allMatch(id -> a.job(id).orElseThrow().state().isTerminal()));
            assertThat(a.job(ids.get(0)).orElseThrow().leaseOwner()).isNotNull();
            Set<String> ran = new java.util.HashSet<>();
            for (long id : ids) {
                ran.add(a.job(id).orElseThrow().leaseOwner());
            }

            dev.converge.EngineInternals.runtime(a).history().flush();
            dev.converge.EngineInternals.runtime(b).history().flush();
            dev.converge.EngineInternals.runtime(a).history().sample(Set.of("default", "slow"));

            List<HistoryPoint> hour = a.history("default", Duration.ofHours(1));
            assertThat(hour).hasSize(60).allSatisfy(p -> assertThat(p.step()).isEqualTo(Duration.ofMinutes(1)));
            assertThat(hour).isSortedAccordingTo(java.util.Comparator.comparing(HistoryPoint::at));
            assertThat(hour.stream().mapToLong(HistoryPoint::succeeded).sum()).as("40 fine, 1 flaky; " + ran)
                    .isEqualTo(41);
            assertThat(hour.stream().mapToLong(HistoryPoint::failed).sum()).isEqualTo(4);
            assertThat(hour.stream().mapToLong(HistoryPoint::retried).sum()).isEqualTo(1);
            assertThat(sampled(hour).depth()).as("nothing waits on default").isZero();
            assertThat(worked(hour)).allSatisfy(p -> {
                assertThat(p.waitP95()).isNotNull();
                assertThat(p.runP95()).as("instant handlers").isLessThanOrEqualTo(Duration.ofMillis(250));
            });
            assertThat(hour.get(0).succeeded()).as("an hour ago nothing ran").isZero();
            assertThat(hour.get(0).depth()).isNull();
            assertThat(hour.get(0).runP95()).isNull();

            List<HistoryPoint> slow = a.history("slow", Duration.ofHours(1));
            assertThat(sum(slow)).isEqualTo(4);
            assertThat(worked(slow)).allSatisfy(p -> assertThat(p.runP95()).as("300 ms handlers fall in the ≤1 s bucket")
                    .isEqualTo(Duration.ofSeconds(1)));

            assertThat(sampled(a.history("later", Duration.ofHours(1))).depth()).isEqualTo(7);
            assertThat(sum(a.history("later", Duration.ofHours(1)))).isZero();

            List<HistoryPoint> day = a.history("default", Duration.ofHours(24));
            assertThat(day).hasSize(96).allSatisfy(p -> assertThat(p.step()).isEqualTo(Duration.ofMinutes(15)));
            assertThat(day.stream().mapToLong(HistoryPoint::succeeded).sum()).isEqualTo(41);
            List<HistoryPoint> week = a.history("default", Duration.ofDays(7));
            assertThat(week).hasSize(168);
            assertThat(sum(week)).isEqualTo(41);

            // a row that cannot be written is carried by the next one
            for (int i = 0; i < 5; i++) {
                ids.add(a.enqueue(FINE, new Work(100 + i)).jobId());
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> ids.stream()
                    .allMatch(id -> a.job(id).orElseThrow().state().isTerminal()));
            sql(store, "ALTER TABLE cv_queue_history RENAME TO cv_queue_history_away");
            dev.converge.EngineInternals.runtime(a).history().flush();
            dev.converge.EngineInternals.runtime(b).history().flush();
            sql(store, "ALTER TABLE cv_queue_history_away RENAME TO cv_queue_history");
            assertThat(sum(a.history("default", Duration.ofHours(1)))).isEqualTo(41);
            dev.converge.EngineInternals.runtime(a).history().flush();
            dev.converge.EngineInternals.runtime(b).history().flush();
            assertThat(sum(a.history("default", Duration.ofHours(1)))).isEqualTo(46);

            assertThatThrownBy(() -> a.history("default", Duration.ofDays(8))).isInstanceOf(
                    IllegalArgumentException.class).hasMessageContaining("7 days");
            assertThatThrownBy(() -> a.history(" ", Duration.ofHours(1))).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void rowsOlderThanSevenDaysAreDeleted() throws Exception {
        SettableClock clock = SettableClock.atNow();
        try (Store store = TestStores.h2(true, clock);
                Converge engine = Converge.builder(store).nodeId("leader").declare(LATER).build()) {
            engine.enqueue(LATER, new Work(1));
            HistoryRecorder h = dev.converge.EngineInternals.runtime(engine).history();
            h.sample(Set.of());
            assertThat(sampled(engine.history("later", Duration.ofHours(1))).depth()).isEqualTo(1);
            clock.advance(HistoryRecorder.KEPT.plusMinutes(2));
            h.sample(Set.of());
            assertThat(count(store)).as("the old sample deleted, the new one kept").isEqualTo(1);
            assertThat(engine.history("later", Duration.ofDays(7)).stream().filter(p -> p.depth() != null))
                    .hasSize(1);
        }
    }

    /** The last point with a depth sample. */
    private static HistoryPoint sampled(List<HistoryPoint> points) {
        return points.stream().filter(p -> p.depth() != null).reduce((x, y) -> y).orElseThrow();
    }

    /** The points in which something ran. */
    private static List<HistoryPoint> worked(List<HistoryPoint> points) {
        List<HistoryPoint> out = points.stream().filter(p -> p.succeeded() + p.failed() + p.retried() > 0).toList();
        assertThat(out).isNotEmpty();
        return out;
    }

    private static long sum(List<HistoryPoint> points) {
        return points.stream().mapToLong(HistoryPoint::succeeded).sum();
    }

    private static void sql(Store store, String sql) {
        store.withConnection(c -> {
            try (Statement st = c.createStatement()) {
                st.execute(sql);
            }
            return null;
        });
    }

    private static long count(Store store) {
        return store.withConnection(c -> {
            try (Statement st = c.createStatement();
                    java.sql.ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM cv_queue_history")) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }
}
