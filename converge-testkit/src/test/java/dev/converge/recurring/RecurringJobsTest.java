package dev.converge.recurring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.Converge;
import dev.converge.fixture.RoundTrips;
import dev.converge.flow.Harness;
import dev.converge.queue.JobType;
import dev.converge.store.Store;
import dev.converge.testkit.SettableClock;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Recurring jobs on a settable clock: one run per slot, missed slots by policy, one enqueue per slot across nodes. */
class RecurringJobsTest {
    static final JobType<Occurrence> REPORT = JobType.of("rec.report", Occurrence.class);
    static final Instant T0 = Instant.parse("2026-03-01T00:00:30Z");

    /** An engine that declares the type but works no queue, so the enqueued runs stay in the table to be counted. */
    static Converge engine(Harness h, Store on, RecurringJob<?> job) {
        return h.engine(on, b -> b.declare(job.type()).recurring(job).maintenance(m -> m.recurringTick(Duration.ofHours(1))));
    }

    /** Runs enqueued per slot, read from the unique keys. */
    static Map<String, Integer> runsBySlot(Store store, String name) {
        return store.withConnection(c -> {
            Map<String, Integer> out = new TreeMap<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT unique_key FROM cv_job WHERE unique_key LIKE ?")) {
                ps.setString(1, "recurring:" + name + ":%");
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.merge(rs.getString(1).substring(("recurring:" + name + ":").length()), 1, Integer::sum);
                    }
                }
            }
            return out;
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void everyEnqueuesEachSlotOnceAndCollapsesMissedSlotsIntoOneRun(String kind) {
        SettableClock clock = new SettableClock(T0);
        try (Harness h = new Harness(kind, clock)) {
            Converge engine = engine(h, h.store(), RecurringJob.of(REPORT, Schedule.every(Duration.ofMinutes(1))));
            assertThat(engine.recurring().tick()).as("the slot that passed before the first round is not run").isZero();
            clock.advance(Duration.ofSeconds(20));
            assertThat(engine.recurring().tick()).isZero();
            clock.advance(Duration.ofSeconds(20)); // 00:01:10
            assertThat(engine.recurring().tick()).isEqualTo(1);
            assertThat(engine.recurring().tick()).as("a slot is enqueued once").isZero();
            clock.advance(Duration.ofMinutes(5)); // 00:06:10: slots 02..05 were missed while nobody ran
            assertThat(engine.recurring().tick()).as("missed slots collapse into one run").isEqualTo(1);
            assertThat(runsBySlot(h.store(), "rec.report")).containsOnlyKeys("2026-03-01T00:01:00Z", "2026-03-01T00:06:00Z");

            RecurringView view = engine.recurring().view("rec.report").orElseThrow();
            assertThat(view.lastSlot()).isEqualTo(Instant.parse("2026-03-01T00:06:00Z"));
            assertThat(view.nextSlot()).isEqualTo(Instant.parse("2026-03-01T00:07:00Z"));
            assertThat(view.schedule()).isEqualTo("every PT1M");
            assertThat(engine.job(view.lastJobId()).orElseThrow().payload()).contains("2026-03-01T00:06:00Z");
        }
    }

    /**
     * The leader's round runs every second by default over every recurring job, and most rounds fall in a
     * slot already decided: such a round sends nothing to the database (it locked each job's row in a
     * transaction of its own before). A slot that another node decided is read once, then known.
     */
    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aRoundInASlotAlreadyDecidedSendsNothing(String kind) {
        SettableClock clock = new SettableClock(T0);
        try (Harness h = new Harness(kind, clock)) {
            Store counted = Store.of(RoundTrips.counting(h.store().dataSource()), clock);
            RecurringJob<?> job = RecurringJob.of(REPORT, Schedule.every(Duration.ofMinutes(1)));
            Converge engine = engine(h, counted, job);
            Converge other = engine(h, h.store(), job);
            assertThat(RoundTrips.sentBy(engine.recurring()::tick)).as("the first round writes the job's row").isNotEmpty();
            assertThat(RoundTrips.sentBy(engine.recurring()::tick)).as("a second round in the same slot").isEmpty();

            clock.advance(Duration.ofMinutes(1)); // 00:01:30
            RoundTrips.Recorded<Integer> due = RoundTrips.during(engine.recurring()::tick);
            assertThat(due.value()).as("a new slot is run").isEqualTo(1);
            assertThat(due.sent()).isNotEmpty();
            assertThat(RoundTrips.sentBy(engine.recurring()::tick)).as("and then known").isEmpty();

            clock.advance(Duration.ofMinutes(1)); // 00:02:30
            assertThat(other.recurring().tick()).as("another node runs the next slot").isEqualTo(1);
            RoundTrips.Recorded<Integer> decided = RoundTrips.during(engine.recurring()::tick);
            assertThat(decided.value()).as("found decided").isZero();
            assertThat(decided.sent()).as("read once").isNotEmpty();
            assertThat(RoundTrips.sentBy(engine.recurring()::tick)).as("then known").isEmpty();
            assertThat(runsBySlot(h.store(), "rec.report")).containsOnlyKeys("2026-03-01T00:01:00Z",
                    "2026-03-01T00:02:00Z");
        }
    }

    /**
     * A paused job's slots pass as skipped, fleet-wide (a second node's round runs none either);
     * resumed, it runs from its next slot without catching up; "run now" runs at once, paused or
     * not, beside the schedule. Each records who and why; pausing twice changes nothing.
     */
    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aPausedJobsSlotsPassUntilResumedAndRunNowRunsAtOnce(String kind) {
        SettableClock clock = new SettableClock(T0);
        try (Harness h = new Harness(kind, clock)) {
            RecurringJob<?> job = RecurringJob.of(REPORT, Schedule.every(Duration.ofMinutes(1)));
            Converge engine = engine(h, h.store(), job);
            Converge other = engine(h, h.store(), job);
            assertThat(engine.recurring().pause("rec.report", "operator ops-1", "the report service is down"))
                    .as("paused before its first round").isTrue();
            assertThat(engine.recurring().pause("rec.report", "operator ops-2", "again")).isFalse();
            RecurringView paused = other.recurring().view("rec.report").orElseThrow();
            assertThat(paused.paused()).isTrue();
            assertThat(paused.lastAction().action()).isEqualTo("paused");
            assertThat(paused.lastAction().actor()).isEqualTo("operator ops-1");
            assertThat(paused.lastAction().reason()).isEqualTo("the report service is down");

            clock.advance(Duration.ofMinutes(3)); // 00:03:30: slots 01..03 pass
            assertThat(engine.recurring().tick()).isZero();
            assertThat(other.recurring().tick()).as("another node's round runs none either").isZero();
            assertThat(runsBySlot(h.store(), "rec.report")).isEmpty();
            assertThat(engine.recurring().view("rec.report").orElseThrow().skipped()).isEqualTo(1);

            long now = engine.recurring().runNow("rec.report", "operator ops-1", "one report by hand");
            assertThat(engine.job(now).orElseThrow().payload()).as("the payload of a slot falling now")
                    .contains("2026-03-01T00:03:30Z");
            assertThat(engine.recurring().view("rec.report").orElseThrow().lastAction().action()).isEqualTo("ran_now");
            assertThat(engine.recurring().view("rec.report").orElseThrow().paused()).as("run now leaves it paused")
                    .isTrue();

            assertThat(other.recurring().resume("rec.report", "operator ops-2", "the service is back")).isTrue();
            assertThat(other.recurring().resume("rec.report", "operator ops-2", "twice")).isFalse();
            assertThat(engine.recurring().tick()).as("no catch-up for the slots that passed while paused").isZero();
            clock.advance(Duration.ofMinutes(1)); // 00:04:30
            assertThat(engine.recurring().tick()).isEqualTo(1);
            assertThat(runsBySlot(h.store(), "rec.report")).containsOnlyKeys("2026-03-01T00:03:30Z",
                    "2026-03-01T00:04:00Z");
            RecurringView resumed = engine.recurring().view("rec.report").orElseThrow();
            assertThat(resumed.paused()).isFalse();
            assertThat(resumed.lastAction().actor()).isEqualTo("operator ops-2");

            assertThatThrownBy(() -> engine.recurring().pause("rec.nothing", "operator ops-1", "why"))
                    .isInstanceOf(java.util.NoSuchElementException.class).hasMessageContaining("rec.nothing");
            assertThatThrownBy(() -> engine.recurring().pause("rec.report", "operator ops-1", " "))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reason");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void skipPolicyRunsOnTimeSlotsAndSkipsOneFoundPastItsGrace(String kind) {
        SettableClock clock = new SettableClock(T0);
        try (Harness h = new Harness(kind, clock)) {
            Converge engine = engine(h, h.store(), RecurringJob.of(REPORT, Schedule.every(Duration.ofHours(1)))
                    .withMissedSlots(MissedSlots.SKIP).withGrace(Duration.ofMinutes(1)));
            engine.recurring().tick();
            clock.set(Instant.parse("2026-03-01T01:00:20Z"));
            assertThat(engine.recurring().tick()).as("on time").isEqualTo(1);
            clock.set(Instant.parse("2026-03-01T04:30:00Z")); // down from 01:00 to 04:30: the 04:00 slot is 30 min late
            assertThat(engine.recurring().tick()).as("late slot skipped").isZero();
            clock.set(Instant.parse("2026-03-01T05:00:05Z"));
            assertThat(engine.recurring().tick()).as("next slot on time").isEqualTo(1);
            assertThat(runsBySlot(h.store(), "rec.report")).containsOnlyKeys("2026-03-01T01:00:00Z", "2026-03-01T05:00:00Z");
            assertThat(engine.recurring().view("rec.report").orElseThrow().skipped()).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void cronSlotsFollowTheExpressionInItsZone(String kind) {
        SettableClock clock = new SettableClock(Instant.parse("2026-03-01T10:03:00Z"));
        try (Harness h = new Harness(kind, clock)) {
            Converge engine = h.engine(b -> b.declare(REPORT).cron(REPORT, "*/5 * * * *", ZoneId.of("Europe/Madrid"))
                    .maintenance(m -> m.recurringTick(Duration.ofHours(1))));
            engine.recurring().tick();
            clock.set(Instant.parse("2026-03-01T10:05:01Z"));
            assertThat(engine.recurring().tick()).isEqualTo(1);
            clock.set(Instant.parse("2026-03-01T10:09:59Z"));
            assertThat(engine.recurring().tick()).isZero();
            assertThat(runsBySlot(h.store(), "rec.report")).containsOnlyKeys("2026-03-01T10:05:00Z");
            assertThat(engine.recurring().view("rec.report").orElseThrow().nextSlot())
                    .isEqualTo(Instant.parse("2026-03-01T10:10:00Z"));
        }
    }

    @Test
    void aDailyCronSlotIsReadInItsZone() {
        Schedule daily = Schedule.cron("0 9 * * *", ZoneId.of("Europe/Madrid"));
        // 09:00 in Madrid is 08:00 UTC in winter and 07:00 UTC after the switch to summer time
        assertThat(daily.nextAfter(Instant.parse("2026-03-01T12:00:00Z"))).isEqualTo(Instant.parse("2026-03-02T08:00:00Z"));
        assertThat(daily.nextAfter(Instant.parse("2026-04-01T12:00:00Z"))).isEqualTo(Instant.parse("2026-04-02T07:00:00Z"));
        assertThat(daily.latestAtOrBefore(Instant.parse("2026-03-02T08:00:00Z"))).isEqualTo(Instant.parse("2026-03-02T08:00:00Z"));
    }

    @Test
    void badDeclarationsFailWhenTheEngineIsBuilt() {
        assertThatThrownBy(() -> Schedule.cron("61 * * * *", ZoneId.of("UTC"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("61 * * * *");
        assertThatThrownBy(() -> Schedule.every(Duration.ofMillis(10))).isInstanceOf(IllegalArgumentException.class);
        try (Harness h = new Harness("h2")) {
            assertThatThrownBy(() -> h.engine(b -> b.every(REPORT, Duration.ofMinutes(1))))
                    .hasMessageContaining("neither handles nor declares");
            assertThatThrownBy(() -> h.engine(b -> b.declare(REPORT).every(REPORT, Duration.ofMinutes(1))
                    .every(REPORT, Duration.ofMinutes(2)))).hasMessageContaining("withName");
        }
    }

    /**
     * Three nodes, each with its own pool (PostgreSQL) and its own leadership round running every
     * 20 ms, and besides that all three deciding each slot at the same instant: one run per slot.
     */
    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void threeNodesEnqueueEachSlotExactlyOnce(String kind) throws Exception {
        SettableClock clock = new SettableClock(T0);
        RecurringJob<Occurrence> job = RecurringJob.of(REPORT, Schedule.every(Duration.ofMinutes(1)));
        try (Harness h = new Harness(kind, clock)) {
            List<Converge> nodes = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Store on = i == 0 ? h.store() : h.anotherStore();
                nodes.add(h.engine(on, b -> b.declare(REPORT).recurring(job).maintenance(m -> m.recurringTick(Duration.ofMillis(20)))));
            }
            ExecutorService pool = Executors.newFixedThreadPool(3);
            try {
                nodes.get(0).recurring().tick(); // the first round records the slot that already passed
                int slots = 20;
                int enqueuedByRaces = 0;
                for (int s = 0; s < slots; s++) {
                    clock.advance(Duration.ofMinutes(1));
                    CyclicBarrier together = new CyclicBarrier(3);
                    List<Future<Integer>> rounds = new ArrayList<>();
                    for (Converge node : nodes) {
                        rounds.add(pool.submit(() -> {
                            together.await();
                            return node.recurring().tick();
                        }));
                    }
                    for (Future<Integer> r : rounds) {
                        enqueuedByRaces += r.get();
                    }
                }
                Thread.sleep(100); // let the leadership rounds decide with the last clock too
                Map<String, Integer> runs = runsBySlot(h.store(), "rec.report");
                assertThat(runs).hasSize(slots);
                assertThat(runs.values()).containsOnly(1);
                assertThat(enqueuedByRaces).isLessThanOrEqualTo(slots);
            } finally {
                pool.shutdownNow();
            }
        }
    }
}
