package dev.converge.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.flow.Flow;
import dev.converge.flow.FlowState;
import dev.converge.flow.FlowView;
import dev.converge.flow.Harness;
import dev.converge.queue.Job;
import dev.converge.queue.JobRow;
import dev.converge.queue.JobState;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import dev.converge.store.TransactionGuard.TransactionHeldAcrossCall;
import dev.converge.testkit.leaf.CountingLeaf;
import dev.converge.testkit.leaf.CountingLeaf.Fault;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** ensure(): every outcome a leaf can give, and every repetition class, on both stores. */
class LedgerTest {
    record Make(String kind, String key, String subject) {
    }

    static final JobType<Make> MAKE = JobType.of("ledger-test.make", Make.class)
            .withRetry(RetryPolicy.attempts(4).backoff(Duration.ofMillis(20)).cappedAt(Duration.ofMillis(50)));

    final CountingLeaf repos = CountingLeaf.uniqueByKey("test.repo");
    final CountingLeaf licenses = CountingLeaf.byIdempotencyKey("test.license");
    final CountingLeaf mailings = CountingLeaf.unsafe("test.mailing");
    final AtomicReference<Throwable> lastError = new AtomicReference<>();

    Converge engine(Harness h) {
        Map<String, CountingLeaf> leaves = Map.of(repos.kind(), repos, licenses.kind(), licenses, mailings.kind(), mailings);
        Converge[] self = new Converge[1];
        self[0] = h.engine(b -> b.queue("default", 4).resource(repos).resource(licenses).resource(mailings)
                .handle(MAKE, (p, ctx) -> {
                    try {
                        ctx.ledger().ensure(leaves.get(p.kind()), p.key(), p.subject(), Map.of());
                    } catch (RuntimeException e) {
                        lastError.set(e);
                        throw e;
                    }
                }));
        return self[0];
    }

    static JobRow runToEnd(Converge engine, Make make) {
        long id = engine.enqueue(Job.of(MAKE, make)).jobId();
        await().atMost(Duration.ofSeconds(20)).until(() -> engine.job(id).orElseThrow().state().isTerminal());
        return engine.job(id).orElseThrow();
    }

    static LedgerEntry entry(Converge engine, CountingLeaf leaf, String key) {
        return engine.ledger().entry(leaf.kind(), key).orElseThrow();
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void aConfirmedEntryIsReturnedWithoutCallingTheLeafAgain(String kind) {
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h);
            assertThat(runToEnd(engine, new Make(repos.kind(), "site-1", "s1")).state()).isEqualTo(JobState.SUCCEEDED);
            assertThat(runToEnd(engine, new Make(repos.kind(), "site-1", "s1")).state()).isEqualTo(JobState.SUCCEEDED);
            assertThat(repos.totalCreates()).isEqualTo(1);
            LedgerEntry e = entry(engine, repos, "site-1");
            assertThat(e.state()).isEqualTo(LedgerState.CONFIRMED);
            assertThat(e.leafId()).isNotNull();
            assertThat(e.subject()).isEqualTo("s1");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void aDefinitiveFailureReleasesTheClaimAndFailsAtOnce(String kind) {
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h);
            repos.failNext(Fault.REJECT_PERMANENT);
            JobRow job = runToEnd(engine, new Make(repos.kind(), "site-2", "s2"));
            assertThat(job.state()).isEqualTo(JobState.FAILED);
            assertThat(job.attempt()).isEqualTo(1);
            assertThat(entry(engine, repos, "site-2").state()).isEqualTo(LedgerState.RELEASED);
            assertThat(repos.holdings()).isEmpty();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void aTransientRejectionIsRetriedAndCreatesOnce(String kind) {
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h);
            repos.failNext(Fault.REJECT_TRANSIENT);
            JobRow job = runToEnd(engine, new Make(repos.kind(), "site-3", "s3"));
            assertThat(job.state()).isEqualTo(JobState.SUCCEEDED);
            assertThat(job.attempt()).isEqualTo(2);
            assertThat(repos.holdings()).containsExactly(Map.entry("site-3", 1));
            assertThat(entry(engine, repos, "site-3").generation()).as("a released claim is claimed again").isEqualTo(2);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void anAmbiguousCreateIsLookedUpAndAdoptedRatherThanRepeated(String kind) {
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h);
            repos.failNext(Fault.AMBIGUOUS_AFTER_CREATE);
            JobRow job = runToEnd(engine, new Make(repos.kind(), "site-4", "s4"));
            assertThat(job.state()).isEqualTo(JobState.SUCCEEDED);
            assertThat(job.attempt()).isEqualTo(2);
            assertThat(repos.createsOf("site-4")).isEqualTo(1);
            assertThat(entry(engine, repos, "site-4").state()).isEqualTo(LedgerState.CONFIRMED);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void anAmbiguousCreateThatDidNotHappenIsLookedUpThenCreated(String kind) {
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h);
            repos.failNext(Fault.AMBIGUOUS_BEFORE_CREATE);
            assertThat(runToEnd(engine, new Make(repos.kind(), "site-5", "s5")).state()).isEqualTo(JobState.SUCCEEDED);
            assertThat(repos.holdings()).containsExactly(Map.entry("site-5", 1));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void anIdempotencyKeyDerivedFromTheEntryMakesTheRetryCollapse(String kind) {
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h);
            licenses.failNext(Fault.AMBIGUOUS_AFTER_CREATE);
            // this leaf has no uniqueness: only the same key on the retry keeps it to one license
            assertThat(runToEnd(engine, new Make(licenses.kind(), "site-6.example", "s6")).state())
                    .isEqualTo(JobState.SUCCEEDED);
            assertThat(licenses.createsOf("site-6.example")).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void anUnsafeCreateWithAnUnknownOutcomeIsNotRetriedAndItsFlowNeedsAttention(String kind) {
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h);
            mailings.failNext(Fault.AMBIGUOUS_AFTER_CREATE);
            long flowId = engine.flows().start(Flow.of("mail", "s7").then(Job.of(MAKE,
                    new Make(mailings.kind(), "s7-mailing", null)))).flowId();
            await().atMost(Duration.ofSeconds(20)).until(() -> engine.flows().get(flowId).orElseThrow().state().isTerminal());
            FlowView flow = engine.flows().get(flowId).orElseThrow();
            assertThat(flow.state()).isEqualTo(FlowState.NEEDS_ATTENTION);
            assertThat(flow.attention()).contains("unsafe to repeat");
            assertThat(lastError.get()).isInstanceOf(OutcomeUnknown.class);
            assertThat(mailings.totalCreates()).as("never repeated").isEqualTo(1);
            assertThat(entry(engine, mailings, "s7-mailing").state()).isIn(LedgerState.UNCERTAIN, LedgerState.RELEASED);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void aResourceAtTheLeafWithoutOurTagIsAConflictNotAnAdoption(String kind) {
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h);
            repos.plant("site-8", "converge:someone-else");
            JobRow job = runToEnd(engine, new Make(repos.kind(), "site-8", "s8"));
            assertThat(job.state()).isEqualTo(JobState.FAILED);
            assertThat(job.attempt()).as("a conflict is not retried").isEqualTo(1);
            assertThat(lastError.get()).isInstanceOf(ResourceConflict.class).hasMessageContaining("not ours");
            assertThat(entry(engine, repos, "site-8").state()).isEqualTo(LedgerState.RELEASED);
            assertThat(repos.holdings()).containsExactly(Map.entry("site-8", 1));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void aResourceAtTheLeafWithOurTagIsAdopted(String kind) {
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h);
            LeafResource earlier = repos.plant("site-9", Ledger.defaultTagFor("s9"));
            assertThat(runToEnd(engine, new Make(repos.kind(), "site-9", "s9")).state()).isEqualTo(JobState.SUCCEEDED);
            assertThat(entry(engine, repos, "site-9").leafId()).isEqualTo(earlier.leafId());
            assertThat(repos.totalCreates()).isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void aKeyHeldByAnotherSubjectIsAConflict(String kind) {
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h);
            runToEnd(engine, new Make(repos.kind(), "shared", "owner-a"));
            JobRow job = runToEnd(engine, new Make(repos.kind(), "shared", "owner-b"));
            assertThat(job.state()).isEqualTo(JobState.FAILED);
            assertThat(lastError.get()).isInstanceOf(ResourceConflict.class).hasMessageContaining("another subject");
            assertThat(repos.totalCreates()).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void aLeafCallInsideAnOpenTransactionFailsFast(String kind) {
        try (Harness h = new Harness(kind)) {
            Converge[] self = new Converge[1];
            JobType<Make> inTx = JobType.of("ledger-test.in-tx", Make.class).withRetry(RetryPolicy.never());
            self[0] = h.engine(b -> b.queue("default", 1).resource(repos).handle(inTx, (p, ctx) -> {
                try {
                    self[0].store().inTransaction(c -> ctx.ledger().ensure(repos, p.key(), p.subject(), Map.of()));
                } catch (RuntimeException e) {
                    lastError.set(e);
                    throw e;
                }
            }));
            long id = self[0].enqueue(Job.of(inTx, new Make(repos.kind(), "site-10", "s10"))).jobId();
            await().atMost(Duration.ofSeconds(10)).until(() -> self[0].job(id).orElseThrow().state() == JobState.FAILED);
            assertThat(lastError.get()).isInstanceOf(TransactionHeldAcrossCall.class).hasMessageContaining("R12");
            assertThat(repos.totalCreates()).isZero();
            assertThat(self[0].ledger().entry(repos.kind(), "site-10")).isEmpty();
        }
    }
}
