package dev.converge.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.batch.Batch;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Failing a flow locks its rows in the order a completion does: the batch a step finished in
 * (its counters), then the chain that batch is a link of (its position), then the flow. A
 * completion that holds the batch row and then advances the chain must not meet a failing
 * flow holding the chain row and waiting for the batch: PostgreSQL breaks that deadlock only
 * after its {@code deadlock_timeout} (one second by default), a second added to the flow's end.
 */
class FailLockOrderTest {
    record Step(String name) {
    }

    static final JobType<Step> STEP = JobType.of("lock-order.step", Step.class);

    @Test
    void failingAFlowWaitsForACompletingBatchWithoutHoldingItsChain() throws Exception {
        CountDownLatch started = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        try (Harness h = new Harness("postgres")) {
            Converge engine = h.engine(b -> b.queue("default", 4).handle(STEP, (p, ctx) -> {
                started.countDown();
                release.await(30, TimeUnit.SECONDS);
            }));
            FlowRun run = engine.flows().start(Flow.of("lock-order", "subject-1")
                    .then(Batch.named("first").add(Job.of(STEP, new Step("a"))).add(Job.of(STEP, new Step("b"))))
                    .then(Job.of(STEP, new Step("c"))));
            assertThat(started.await(20, TimeUnit.SECONDS)).as("both batch steps running").isTrue();
            long flowId = run.flowId();
            long batchId = one(h, "SELECT id FROM cv_batch WHERE flow_id = " + flowId);
            long chainId = one(h, "SELECT id FROM cv_chain WHERE flow_id = " + flowId);

            try (Connection completer = h.store().dataSource().getConnection()) {
                completer.setAutoCommit(false);
                // what a completion of one of the batch's steps does first: count it in its batch
                try (PreparedStatement st = completer.prepareStatement(
                        "UPDATE cv_batch SET pending = pending WHERE id = ?")) {
                    st.setLong(1, batchId);
                    assertThat(st.executeUpdate()).isEqualTo(1);
                }
                CompletableFuture<Boolean> failing = CompletableFuture.supplyAsync(
                        () -> engine.flows().fail(flowId, "the subject was deleted"));
                await().atMost(Duration.ofSeconds(10)).until(() -> failing.isDone() || waitingForALock(h) > 0);
                assertThat(failing).as("fail() waits for the completion's batch row").isNotDone();

                // then the completion moves the chain on; the failing flow must not hold that row meanwhile
                try (Statement st = completer.createStatement()) {
                    st.execute("SET LOCAL lock_timeout = '300ms'"); // well below the server's deadlock_timeout
                    st.executeUpdate("UPDATE cv_chain SET position = position WHERE id = " + chainId);
                } catch (SQLException e) {
                    throw new AssertionError("the chain row was held by the failing flow while it waited for the "
                            + "batch row (" + e.getSQLState() + ": " + e.getMessage() + ")", e);
                }
                completer.commit();
                assertThat(failing.get(10, TimeUnit.SECONDS)).as("the flow failed, once").isTrue();
            } finally {
                release.countDown();
            }
            assertThat(engine.flows().get(flowId).orElseThrow().state()).isNotEqualTo(FlowState.RUNNING);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> engine.flows().get(flowId).orElseThrow().state() == FlowState.FAILED);
        }
    }

    private static long one(Harness h, String sql) {
        return h.store().withConnection(c -> {
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
                assertThat(rs.next()).as(sql).isTrue();
                return rs.getLong(1);
            }
        });
    }

    private static long waitingForALock(Harness h) {
        return h.store().withConnection(c -> {
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_stat_activity "
                    + "WHERE datname = current_database() AND wait_event_type = 'Lock'")) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }
}
