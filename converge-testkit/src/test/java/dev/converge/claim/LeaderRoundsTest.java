package dev.converge.claim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.queue.JobState;
import dev.converge.queue.JobType;
import dev.converge.retention.RetentionPolicy;
import dev.converge.store.Store;
import dev.converge.testkit.SettableClock;
import dev.converge.testkit.TestStores;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The fleet's leader tasks say what they last did, readable from any node: here retention, once
 * the jobs it keeps for a day are older than that, records how many it deleted and when, and a
 * second node reads it.
 */
class LeaderRoundsTest {
    record Work(int n) {
    }

    static final JobType<Work> WORK = JobType.of("rounds.work", Work.class);

    @Test
    void retentionSaysWhatItDeletedAndWhenToEveryNode() {
        SettableClock clock = SettableClock.atNow();
        try (Store store = TestStores.h2(true, clock);
                Converge leader = Converge.builder(store).nodeId("leader").queues(q -> q.poll(Duration.ofMillis(50)))
                        .maintenance(m -> m.retention(RetentionPolicy.defaults().every(Duration.ofMillis(200))))
                        .handle(WORK, (w, ctx) -> { }).queue("default", 2).build().start();
                Converge reader = Converge.builder(store).nodeId("reader").build()) {
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                ids.add(leader.enqueue(WORK, new Work(i)).jobId());
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> ids.stream()
                    .allMatch(id -> leader.job(id).orElseThrow().state() == JobState.SUCCEEDED));
            await().atMost(Duration.ofSeconds(20)).until(() -> round(reader, "retention").isPresent());
            assertThat(round(reader, "retention").orElseThrow().changedAt()).as("nothing was a day old yet").isNull();

            clock.advance(Duration.ofHours(25));
            await().atMost(Duration.ofSeconds(20)).until(() -> round(reader, "retention")
                    .map(LeaderRound::changedDetail).orElse("").startsWith("deleted 5 jobs"));
            LeaderRound r = round(reader, "retention").orElseThrow();
            assertThat(r.nodeId()).isEqualTo("leader");
            assertThat(r.outcome()).isEqualTo("ok");
            assertThat(r.changedAt()).isAfterOrEqualTo(clock.sqlNow().minusSeconds(1));
            assertThat(leader.job(ids.get(0))).isEmpty();
        }
    }

    private static Optional<LeaderRound> round(Converge engine, String task) {
        return engine.leaderRounds().stream().filter(r -> r.task().equals(task)).findFirst();
    }
}
