package dev.converge.testkit.contract;

import static dev.converge.testkit.contract.ContractFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.Converge;
import dev.converge.queue.EnqueueResult;
import dev.converge.queue.Job;
import dev.converge.queue.JobRow;
import dev.converge.queue.JobState;
import dev.converge.testkit.contract.ContractJobs.Step;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Getting jobs in: one, many in bulk, unique by key, and inside the caller's own transaction. */
public interface EnqueueContract extends HasFixture {

    @Test
    default void aUniqueKeyGivesBackTheExistingJob() {
        Converge producer = fixture().producer(b -> b.declare(ContractJobs.STEP));
        EnqueueResult first = producer.enqueue(Job.of(ContractJobs.STEP, new Step(1)).uniqueKey("invoice-7"));
        EnqueueResult again = producer.enqueue(Job.of(ContractJobs.STEP, new Step(2)).uniqueKey("invoice-7"));
        assertThat(first.duplicate()).isFalse();
        assertThat(again.duplicate()).isTrue();
        assertThat(again.jobId()).isEqualTo(first.jobId());
        assertThat(fixture().job(first.jobId()).payload()).contains("1");

        long[] ids = producer.enqueueAll(List.of(Job.of(ContractJobs.STEP, new Step(3)).uniqueKey("invoice-8"),
                Job.of(ContractJobs.STEP, new Step(4)).uniqueKey("invoice-7")));
        assertThat(ids[1]).isEqualTo(-1);
        Optional<JobRow> byKey = fixture().store().withConnection(c -> fixture().jobs().byUniqueKey(c, "invoice-8"));
        assertThat(byKey).isPresent();
    }

    @Test
    default void aUniqueKeyOfARolledBackEnqueueIsFreeAgain() throws SQLException {
        Converge producer = fixture().producer(b -> b.declare(ContractJobs.STEP));
        try (Connection c = fixture().store().dataSource().getConnection()) {
            c.setAutoCommit(false);
            producer.enqueue(c, Job.of(ContractJobs.STEP, new Step(1)).uniqueKey("welcome:42"));
            c.rollback();
        }
        EnqueueResult after = producer.enqueue(Job.of(ContractJobs.STEP, new Step(2)).uniqueKey("welcome:42"));
        assertThat(after.duplicate()).isFalse();
        assertThat(fixture().job(after.jobId()).payload()).contains("2");
    }

    @Test
    default void manyJobsGoInInBulkInOrderAndEachRunsOnce() {
        int n = 5_000;
        Map<Integer, AtomicInteger> runs = new ConcurrentHashMap<>();
        Converge producer = fixture().producer(b -> b.declare(ContractJobs.STEP));
        List<Job<Step>> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            jobs.add(Job.of(ContractJobs.STEP, new Step(i)));
        }
        long[] ids = producer.enqueueAll(jobs);
        assertThat(ids).hasSize(n).doesNotContain(-1L);
        long[] sorted = ids.clone();
        Arrays.sort(sorted);
        assertThat(ids).as("ids in input order").containsExactly(sorted);
        assertThat(fixture().job(ids[1234]).payload()).isEqualTo("{\"n\":1234}");

        Converge worker = fixture().engine(b -> b.handle(ContractJobs.STEP,
                (s, ctx) -> runs.computeIfAbsent(s.n(), k -> new AtomicInteger()).incrementAndGet())
                .queue("default", 8).prefetch(100));
        await().until(() -> worker.stats().succeeded() == n);
        assertThat(runs).hasSize(n);
        assertThat(runs.values()).allMatch(c -> c.get() == 1);
    }

    @Test
    default void aJobEnqueuedInTheCallersTransactionExistsIfAndOnlyIfItCommits() throws SQLException {
        fixture().sql("CREATE TABLE IF NOT EXISTS contract_order (id BIGINT PRIMARY KEY, note VARCHAR(100))",
                "DELETE FROM contract_order");
        Converge engine = fixture().engine(b -> b.handle(ContractJobs.STEP, (s, ctx) -> { }).queue("default", 1));
        long committed;
        long rolledBack;
        try (Connection c = fixture().store().dataSource().getConnection()) {
            c.setAutoCommit(false);
            insertOrder(c, 1);
            committed = engine.enqueue(c, Job.of(ContractJobs.STEP, new Step(1))).jobId();
            c.commit();
            insertOrder(c, 2);
            rolledBack = engine.enqueue(c, Job.of(ContractJobs.STEP, new Step(2))).jobId();
            c.rollback();
            c.setAutoCommit(true);
        }
        fixture().awaitState(committed, JobState.SUCCEEDED);
        assertThat(fixture().findJob(rolledBack)).isEmpty();
        assertThat(orders()).containsExactly(1L);
    }

    @Test
    default void oneJobEnqueuedAloneRuns() {
        Converge engine = fixture().engine(b -> b.handle(ContractJobs.STEP, (s, ctx) -> { }).queue("default", 1));
        EnqueueResult r = engine.enqueue(ContractJobs.STEP, new Step(1));
        assertThat(r.duplicate()).isFalse();
        assertThat(fixture().awaitState(r.jobId(), JobState.SUCCEEDED).attempt()).isEqualTo(1);
    }

    private static void insertOrder(Connection c, long id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO contract_order (id, note) VALUES (?, 'x')")) {
            ps.setLong(1, id);
            ps.executeUpdate();
        }
    }

    private List<Long> orders() {
        return fixture().store().withConnection(c -> {
            List<Long> ids = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT id FROM contract_order ORDER BY id");
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
            return ids;
        });
    }
}
