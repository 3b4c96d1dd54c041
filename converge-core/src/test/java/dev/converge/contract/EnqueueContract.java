package dev.converge.contract;

import static dev.converge.contract.ContractFixture.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.Converge;
import dev.converge.ConvergeException;
import dev.converge.queue.EnqueueResult;
import dev.converge.queue.Job;
import dev.converge.queue.JobRow;
import dev.converge.queue.JobState;
import dev.converge.queue.JobType;
import dev.converge.contract.ContractJobs.Step;
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
                .queue("default", 8).queues(q -> q.prefetch(100)));
        await().until(() -> worker.stats().succeeded() == n);
        assertThat(runs).hasSize(n);
        assertThat(runs.values()).allMatch(c -> c.get() == 1);
    }

    /** More jobs than one bulk statement takes, so enqueueAll spans several statements (slices). */
    int MANY = 12_345;

    @Test
    default void idsOfAManySliceBulkEnqueueComeBackInInputOrder() throws SQLException {
        Converge producer = fixture().producer(b -> b.declare(ContractJobs.STEP));
        List<Job<Step>> jobs = new ArrayList<>();
        for (int i = 0; i < MANY; i++) {
            jobs.add(Job.of(ContractJobs.STEP, new Step(i)).queue(i % 3 == 0 ? "default" : "other"));
        }
        long[] ids = producer.enqueueAll(jobs);
        assertThat(ids).hasSize(MANY).doesNotContain(-1L);
        Map<Long, String> stored = payloadsById();
        assertThat(stored).hasSize(MANY);
        for (int i = 0; i < MANY; i++) {
            assertThat(stored.get(ids[i])).as("payload of the job at position %d", i).isEqualTo("{\"n\":" + i + "}");
        }
    }

    @Test
    default void aBadPayloadLateInAManySliceBulkEnqueueCommitsNothing() throws SQLException {
        JobType<BadInputContract.OneWay> oneWay = JobType.of("contract.one-way", BadInputContract.OneWay.class);
        Converge producer = fixture().producer(b -> b.declare(ContractJobs.STEP).declare(oneWay));
        List<Job<?>> jobs = new ArrayList<>();
        for (int i = 0; i < MANY; i++) {
            jobs.add(i == MANY - 2 ? Job.of(oneWay, new BadInputContract.OneWay(i, "x")) : Job.of(ContractJobs.STEP, new Step(i)));
        }
        assertThatThrownBy(() -> producer.enqueueAll(jobs))
                .isInstanceOf(ConvergeException.class).hasMessageContaining("does not deserialize");
        assertThat(payloadsById()).as("no job of the call is stored").isEmpty();

        jobs.set(MANY - 2, Job.of(JobType.of("contract.nobody-knows", Step.class), new Step(0)));
        assertThatThrownBy(() -> producer.enqueueAll(jobs))
                .isInstanceOf(ConvergeException.class).hasMessageContaining("contract.nobody-knows");
        assertThat(payloadsById()).as("no job of the call is stored").isEmpty();

        jobs.set(MANY - 2, Job.of(ContractJobs.STEP, new Step(MANY - 2)));
        assertThat(producer.enqueueAll(jobs)).as("the same call, mended, goes in whole").hasSize(MANY).doesNotContain(-1L);
        assertThat(payloadsById()).hasSize(MANY);
    }

    @Test
    default void onlyTheJobsWhoseUniqueKeyIsTakenGetMinusOneInAManySliceBulkEnqueue() throws SQLException {
        Converge producer = fixture().producer(b -> b.declare(ContractJobs.STEP));
        long earlier = producer.enqueue(Job.of(ContractJobs.STEP, new Step(-1)).uniqueKey("taken-before")).jobId();
        List<Job<Step>> jobs = new ArrayList<>();
        for (int i = 0; i < MANY; i++) {
            jobs.add(Job.of(ContractJobs.STEP, new Step(i)).uniqueKey(i % 2 == 0 ? "k-" + i : null));
        }
        int takenBefore = 4_000;
        int sameAsFirstSlice = MANY - 100;
        int sameAsTheRowBefore = MANY - 1;
        jobs.set(takenBefore, Job.of(ContractJobs.STEP, new Step(takenBefore)).uniqueKey("taken-before"));
        jobs.set(sameAsFirstSlice, Job.of(ContractJobs.STEP, new Step(sameAsFirstSlice)).uniqueKey("k-10"));
        jobs.set(sameAsTheRowBefore - 1, Job.of(ContractJobs.STEP, new Step(sameAsTheRowBefore - 1)).uniqueKey("twice"));
        jobs.set(sameAsTheRowBefore, Job.of(ContractJobs.STEP, new Step(sameAsTheRowBefore)).uniqueKey("twice"));

        long[] ids = producer.enqueueAll(jobs);

        List<Integer> skipped = new ArrayList<>();
        for (int i = 0; i < MANY; i++) {
            if (ids[i] == -1) {
                skipped.add(i);
            }
        }
        assertThat(skipped).containsExactly(takenBefore, sameAsFirstSlice, sameAsTheRowBefore);
        Map<Long, String> stored = payloadsById();
        assertThat(stored).hasSize(MANY - 3 + 1);
        assertThat(stored.get(earlier)).isEqualTo("{\"n\":-1}");
        for (int i = 0; i < MANY; i++) {
            if (ids[i] != -1) {
                assertThat(stored.get(ids[i])).as("payload of the job at position %d", i).isEqualTo("{\"n\":" + i + "}");
            }
        }
    }

    private Map<Long, String> payloadsById() throws SQLException {
        Map<Long, String> out = new java.util.HashMap<>();
        try (Connection c = fixture().store().dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(fixture().store().expand("SELECT id, payload FROM cv_job"));
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.put(rs.getLong(1), rs.getString(2));
            }
        }
        return out;
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
