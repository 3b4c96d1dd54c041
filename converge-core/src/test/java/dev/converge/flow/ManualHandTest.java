package dev.converge.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.converge.store.internal.Dialects;
import dev.converge.Converge;
import dev.converge.ledger.LedgerEntry;
import dev.converge.ledger.LedgerState;
import dev.converge.queue.Job;
import dev.converge.queue.JobState;
import dev.converge.queue.JobType;
import dev.converge.queue.NonRetryableException;
import dev.converge.queue.RetryPolicy;
import dev.converge.queue.internal.JobStore;
import dev.converge.token.Token;
import dev.converge.token.TokenState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A person's hand when automation stops: a flow that needs attention retried from where it
 * stopped, a job that failed for good retried, an uncertain ledger entry and a token whose use is
 * unknown settled. Each is one fenced change: two people acting at once (two threads, real
 * PostgreSQL among the stores) change it once.
 */
class ManualHandTest {
    record Step(String subject, String name) {
    }

    static final JobType<Step> STEP = JobType.of("hand-test.step", Step.class).withRetry(RetryPolicy.never());
    static final JobType<Step> UNDO = JobType.of("hand-test.undo", Step.class);
    static final JobType<Step> REPORT = JobType.of("hand-test.report", Step.class);
    static final JobType<Step> ALONE = JobType.of("hand-test.alone", Step.class).withRetry(RetryPolicy.never());

    final List<String> log = new CopyOnWriteArrayList<>();
    /** While false, undoing "deploy" fails (the leaf is down); a person fixes the leaf, then retries. */
    final AtomicBoolean leafFixed = new AtomicBoolean();
    final AtomicInteger aloneRuns = new AtomicInteger();
    private Converge engine;

    Converge engine(Harness h) {
        engine = h.engine(b -> b.queue("default", 4)
                .handle(STEP, (p, ctx) -> {
                    if (p.name().equals("email")) {
                        throw new NonRetryableException("step email failed");
                    }
                    log.add(p.subject() + ":do:" + p.name());
                    ctx.flows().compensateWith(Job.of(UNDO, p));
                })
                .handle(UNDO, (p, ctx) -> {
                    if (p.name().equals("deploy") && !leafFixed.get()) {
                        throw new IllegalStateException("cannot undo deploy: the leaf is down");
                    }
                    log.add(p.subject() + ":undo:" + p.name());
                })
                .handle(REPORT, (p, ctx) -> log.add(p.subject() + ":report:" + p.name()))
                .handle(ALONE, (p, ctx) -> {
                    aloneRuns.incrementAndGet();
                    if (!leafFixed.get()) {
                        throw new NonRetryableException("the leaf is down");
                    }
                    log.add(p.subject() + ":alone");
                }));
        return engine;
    }

    Flow flow(String subject) {
        return Flow.of("hand", subject)
                .then(Job.of(STEP, new Step(subject, "repo")))
                .then(Job.of(STEP, new Step(subject, "deploy")))
                .then(Job.of(STEP, new Step(subject, "email")))
                .onFailure(Job.of(REPORT, new Step(subject, "failed")));
    }

    /** Runs the same call on two threads released together; returns both answers. */
    static <T> List<T> twoAtOnce(Callable<T> a, Callable<T> b) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            CyclicBarrier start = new CyclicBarrier(2);
            List<Future<T>> fs = new ArrayList<>();
            for (Callable<T> call : List.of(a, b)) {
                fs.add(pool.submit(() -> {
                    start.await();
                    return call.call();
                }));
            }
            List<T> out = new ArrayList<>();
            for (Future<T> f : fs) {
                out.add(f.get());
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aFlowNeedingAttentionIsRetriedOnceFromWhereItStopped(String kind) throws Exception {
        try (Harness h = new Harness(kind)) {
            engine(h);
            for (int round = 0; round < 3; round++) {
                String subject = "site-" + round;
                long flowId = engine.flows().start(flow(subject)).flowId();
                await().atMost(Duration.ofSeconds(20)).until(() -> log.contains(subject + ":report:failed"));
                assertThat(engine.flows().get(flowId).orElseThrow().state()).isEqualTo(FlowState.NEEDS_ATTENTION);
                assertThat(log).containsOnlyOnce(subject + ":undo:repo").doesNotContain(subject + ":undo:deploy");

                assertThatThrownBy(() -> engine.flows().retry(flowId, "ada", " "))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reason");
                leafFixed.set(true);
                List<Boolean> won = twoAtOnce(() -> engine.flows().retry(flowId, "ada", "the leaf is back"),
                        () -> engine.flows().retry(flowId, "bob", "the leaf is back"));
                assertThat(won).as("two retries at once restart the flow once").containsExactlyInAnyOrder(true, false);

                await().atMost(Duration.ofSeconds(20)).until(() ->
                        engine.flows().get(flowId).orElseThrow().state() == FlowState.FAILED);
                await().atMost(Duration.ofSeconds(10)).until(() ->
                        log.stream().filter((subject + ":report:failed")::equals).count() == 2);
                assertThat(log).as("what was undone stays undone; what gave up ran again, once")
                        .containsOnlyOnce(subject + ":undo:repo", subject + ":undo:deploy");
                assertThat(engine.flows().compensations(flowId)).extracting(Compensation::state).containsOnly("done");
                List<FlowEvent> history = engine.flows().history(flowId);
                assertThat(history).extracting(FlowEvent::to).containsExactly(FlowState.RUNNING, FlowState.COMPENSATING,
                        FlowState.NEEDS_ATTENTION, FlowState.COMPENSATING, FlowState.FAILED);
                FlowEvent retried = history.get(3);
                assertThat(retried.actor()).isIn("ada", "bob");
                assertThat(retried.reason()).contains("the leaf is back");
                assertThat(history.get(0).actor()).isNull();
                assertThat(engine.flows().retry(flowId, "ada", "again")).as("a failed flow is not retried").isFalse();
                leafFixed.set(false);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aJobThatFailedForGoodIsRetriedOnce(String kind) throws Exception {
        try (Harness h = new Harness(kind)) {
            engine(h);
            for (int round = 0; round < 3; round++) {
                aloneRuns.set(0);
                leafFixed.set(false);
                long id = engine.enqueue(Job.of(ALONE, new Step("s" + round, "alone"))).jobId();
                await().atMost(Duration.ofSeconds(10)).until(() -> engine.job(id).orElseThrow().state() == JobState.FAILED);
                leafFixed.set(true);
                List<Boolean> won = twoAtOnce(() -> engine.retryFailedJob(id, "ada", "leaf fixed"),
                        () -> engine.retryFailedJob(id, "bob", "leaf fixed"));
                assertThat(won).containsExactlyInAnyOrder(true, false);
                await().atMost(Duration.ofSeconds(10)).until(() -> engine.job(id).orElseThrow().state() == JobState.SUCCEEDED);
                assertThat(aloneRuns.get()).as("one failed run, then one retried run").isEqualTo(2);
                assertThat(engine.retryFailedJob(id, "ada", "again")).isFalse();
            }
            assertThatThrownBy(() -> engine.retryFailedJob(1, "ada", "")).isInstanceOf(IllegalArgumentException.class);
            leafFixed.set(true);
            long flowId = engine.flows().start(flow("in-flow")).flowId();
            await().atMost(Duration.ofSeconds(20)).until(() -> engine.flows().get(flowId).orElseThrow().state().isTerminal());
            long step = h.store().withConnection(c -> {
                try (var ps = c.prepareStatement("SELECT id FROM cv_job WHERE flow_id = ? AND state = 'failed'")) {
                    ps.setLong(1, flowId);
                    try (var rs = ps.executeQuery()) {
                        rs.next();
                        return rs.getLong(1);
                    }
                }
            });
            assertThatThrownBy(() -> engine.retryFailedJob(step, "ada", "try it"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retry the flow");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aWaitingJobIsCancelledOnceAndARunningOneNever(String kind) throws Exception {
        try (Harness h = new Harness(kind)) {
            engine(h);
            leafFixed.set(true);
            for (int round = 0; round < 3; round++) {
                long id = engine.enqueue(Job.of(ALONE, new Step("w" + round, "alone")).delay(Duration.ofHours(1))).jobId();
                List<Boolean> won = twoAtOnce(() -> engine.cancelWaitingJob(id, "ada", "not wanted"),
                        () -> engine.cancelWaitingJob(id, "bob", "not wanted"));
                assertThat(won).as("two cancels at once cancel it once").containsExactlyInAnyOrder(true, false);
                var row = engine.job(id).orElseThrow();
                assertThat(row.state()).isEqualTo(JobState.CANCELLED);
                assertThat(row.lastError()).contains("cancelled by").contains("not wanted");
                assertThat(engine.cancelWaitingJob(id, "ada", "again")).isFalse();
            }
            assertThatThrownBy(() -> engine.cancelWaitingJob(1, "ada", " ")).isInstanceOf(IllegalArgumentException.class);

            // a job leased since the person looked is not touched: running, or back to available under a new epoch
            long running = engine.enqueue(Job.of(ALONE, new Step("r", "alone")).delay(Duration.ofHours(1))).jobId();
            sql(h, "UPDATE cv_job SET state = 'running', epoch = epoch + 1, lease_owner = 'elsewhere', "
                    + "lease_expires_at = run_at WHERE id = " + running);
            assertThat(engine.cancelWaitingJob(running, "ada", "stop it")).isFalse();
            assertThat(engine.job(running).orElseThrow().state()).isEqualTo(JobState.RUNNING);
            sql(h, "UPDATE cv_job SET state = 'available', lease_owner = NULL, lease_expires_at = NULL WHERE id = " + running);
            long seen = engine.job(running).orElseThrow().epoch();
            JobStore jobs = new JobStore(Dialects.forUrl(h.store().config().url(), h.store().config().schema()));
            boolean stale = h.store().withConnection(c -> jobs.cancelWaiting(c, running, seen - 1, "stale", null));
            assertThat(stale)
                    .as("an epoch read before the job was leased again cancels nothing").isFalse();
            assertThat(engine.job(running).orElseThrow().state()).isEqualTo(JobState.AVAILABLE);
            boolean current = h.store().withConnection(c -> jobs.cancelWaiting(c, running, seen, "current", null));
            assertThat(current).isTrue();

            // a flow's waiting step cancelled by hand ends its chain, and the flow fails and reports
            Flow waiting = Flow.of("hand", "cancelled-flow")
                    .then(Job.of(STEP, new Step("cancelled-flow", "repo")).delay(Duration.ofHours(1)))
                    .then(Job.of(STEP, new Step("cancelled-flow", "deploy")))
                    .onFailure(Job.of(REPORT, new Step("cancelled-flow", "failed")));
            long flowId = engine.flows().start(waiting).flowId();
            long step = h.store().withConnection(c -> {
                try (var ps = c.prepareStatement("SELECT id FROM cv_job WHERE flow_id = ? AND state = 'available'")) {
                    ps.setLong(1, flowId);
                    try (var rs = ps.executeQuery()) {
                        rs.next();
                        return rs.getLong(1);
                    }
                }
            });
            assertThat(engine.cancelWaitingJob(step, "ada", "wrong site")).isTrue();
            await().atMost(Duration.ofSeconds(20)).until(() -> engine.flows().get(flowId).orElseThrow().state().isTerminal());
            assertThat(engine.flows().get(flowId).orElseThrow().state()).isEqualTo(FlowState.FAILED);
            await().atMost(Duration.ofSeconds(10)).until(() -> log.contains("cancelled-flow:report:failed"));
            assertThat(log).noneMatch(l -> l.startsWith("cancelled-flow:do:"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void anUncertainEntryIsSettledOnceByAPerson(String kind) throws Exception {
        try (Harness h = new Harness(kind)) {
            engine(h);
            leafFixed.set(true);
            long flowId = engine.flows().start(flow("owner")).flowId();
            await().atMost(Duration.ofSeconds(20)).until(() -> engine.flows().get(flowId).orElseThrow().state().isTerminal());
            for (int round = 0; round < 3; round++) {
                long entry = uncertainEntry(h, "key-" + round, flowId, null);
                String leafId = "leaf-" + round;
                List<Boolean> won = twoAtOnce(() -> engine.ledger().settleExists(entry, leafId, "ada", "found it in the console"),
                        () -> engine.ledger().settleAbsent(entry, "bob", "not in the console"));
                assertThat(won).containsExactlyInAnyOrder(true, false);
                LedgerEntry e = engine.ledger().entry(entry).orElseThrow();
                boolean exists = won.get(0);
                assertThat(e.state()).isEqualTo(exists ? LedgerState.CONFIRMED : LedgerState.RELEASED);
                if (exists) {
                    assertThat(e.leafId()).isEqualTo(leafId);
                }
                assertThat(e.ownerJobId()).isNull();
                assertThat(engine.ledger().settleAbsent(entry, "bob", "again")).isFalse();
                assertThat(engine.flows().history(flowId)).filteredOn(ev -> "ada".equals(ev.actor()) || "bob".equals(ev.actor()))
                        .anySatisfy(ev -> assertThat(ev.reason()).contains("ledger entry " + entry)
                                .contains(exists ? "adopted and confirmed" : "released"));
            }
            // while a delivery of its owner runs, nobody settles it by hand
            long running = h.store().withConnection(c -> {
                try (var ps = c.prepareStatement("SELECT MAX(id) FROM cv_job"); var rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            });
            sql(h, "UPDATE cv_job SET state = 'running' WHERE id = " + running);
            long held = uncertainEntry(h, "key-held", null, running);
            assertThat(engine.ledger().settleAbsent(held, "ada", "looks gone")).isFalse();
            assertThat(engine.ledger().entry(held).orElseThrow().state()).isEqualTo(LedgerState.UNCERTAIN);
            sql(h, "UPDATE cv_job SET state = 'failed' WHERE id = " + running);
            assertThat(engine.ledger().settleAbsent(held, "ada", "looks gone")).isTrue();
            assertThatThrownBy(() -> engine.ledger().settleAbsent(held, null, "why")).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aTokenWhoseUseIsUnknownIsSettledOnceByAPerson(String kind) throws Exception {
        try (Harness h = new Harness(kind)) {
            engine(h);
            leafFixed.set(true);
            long deadJob = engine.enqueue(Job.of(ALONE, new Step("t", "alone"))).jobId();
            await().atMost(Duration.ofSeconds(10)).until(() -> engine.job(deadJob).orElseThrow().state() == JobState.SUCCEEDED);
            for (int round = 0; round < 3; round++) {
                String value = "tok-" + round;
                engine.tokens().add("mail", value, "site-" + round);
                long id = engine.tokens().all("mail").stream().filter(t -> t.value().equals(value)).findFirst()
                        .orElseThrow().id();
                assertThat(engine.tokens().settle(id, true, "ada", "not used yet")).as("an available token is not settled")
                        .isFalse();
                sql(h, "UPDATE cv_token SET state = 'checked_out', owner = 'gone', owner_job_id = " + deadJob
                        + ", owner_epoch = 1, checked_out_at = created_at, used_at = created_at WHERE id = " + id);
                List<Boolean> won = twoAtOnce(() -> engine.tokens().settle(id, true, "ada", "the mail server log shows it"),
                        () -> engine.tokens().settle(id, false, "bob", "no such mail"));
                assertThat(won).containsExactlyInAnyOrder(true, false);
                Token t = engine.tokens().get(id).orElseThrow();
                assertThat(t.state()).isEqualTo(won.get(0) ? TokenState.SPENT : TokenState.AVAILABLE);
                if (t.state() == TokenState.AVAILABLE) {
                    assertThat(t.ownerJobId()).isNull();
                    assertThat(t.usedAt()).isNull();
                }
                assertThat(engine.tokens().settle(id, false, "bob", "again")).isFalse();
            }
        }
    }

    private static long uncertainEntry(Harness h, String key, Long flowId, Long ownerJob) {
        return h.store().withConnection(c -> {
            try (var ps = c.prepareStatement("INSERT INTO cv_ledger (kind, natural_key, flow_id, subject, state, safety, "
                    + "owner_job_id, owner_epoch, last_error, created_at, updated_at) VALUES ('repo', ?, ?, 'owner', "
                    + "'uncertain', 'unsafe', ?, ?, 'the create timed out', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
                    new String[] {"id"})) {
                ps.setString(1, key);
                ps.setObject(2, flowId);
                ps.setObject(3, ownerJob);
                ps.setObject(4, ownerJob == null ? null : 1L);
                ps.executeUpdate();
                try (var rs = ps.getGeneratedKeys()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
    }

    private static void sql(Harness h, String statement) {
        h.store().withConnection(c -> {
            try (var st = c.createStatement()) {
                st.executeUpdate(statement);
            }
            return null;
        });
    }
}
