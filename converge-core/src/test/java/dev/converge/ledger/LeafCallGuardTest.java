package dev.converge.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.flow.Harness;
import dev.converge.ledger.internal.LedgerEngine;
import dev.converge.ledger.internal.LedgerEngine.EntryRef;
import dev.converge.ledger.internal.ResourceTypes;
import dev.converge.queue.Job;
import dev.converge.handler.JobContext;
import dev.converge.queue.JobState;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import dev.converge.store.TransactionGuard.TransactionHeldAcrossCall;
import dev.converge.fixture.MemoryLeaf;
import dev.converge.token.TokenOperation;
import dev.converge.token.TokenState;
import dev.converge.token.internal.TokenService.TokenRef;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * R12 on every path that calls a leaf, not only create and delete: a lookup in teardown, a lookup
 * when the reaper resolves a stale entry, a token pool's "was it used?", and the inventory read by
 * the orphan scan. Each is refused, before the leaf is called, on a thread holding a transaction.
 */
class LeafCallGuardTest {
    record Make(String key, String subject) {
    }

    record Work(String what) {
    }

    static final JobType<Make> MAKE = JobType.of("guard-test.make", Make.class).withRetry(RetryPolicy.never());
    static final JobType<Work> IN_TX = JobType.of("guard-test.in-tx", Work.class).withRetry(RetryPolicy.never());

    /** Counts every call to the leaf, whatever it is. */
    static final class Spy implements ResourceType {
        final MemoryLeaf leaf = MemoryLeaf.uniqueByKey("guard.repo");
        final AtomicInteger finds = new AtomicInteger();
        final AtomicInteger lists = new AtomicInteger();

        @Override
        public String kind() {
            return leaf.kind();
        }

        @Override
        public RepetitionSafety createSafety() {
            return leaf.createSafety();
        }

        @Override
        public boolean supportsLookup() {
            return true;
        }

        @Override
        public LeafResource create(CreateRequest request) {
            return leaf.create(request);
        }

        @Override
        public Optional<LeafResource> find(String naturalKey) {
            finds.incrementAndGet();
            return leaf.find(naturalKey);
        }

        @Override
        public void delete(LeafResource resource) {
            leaf.delete(resource);
        }

        @Override
        public List<LeafResource> list() {
            lists.incrementAndGet();
            return leaf.list();
        }
    }

    final Spy spy = new Spy();
    final AtomicReference<Throwable> error = new AtomicReference<>();

    /** An engine whose IN_TX job runs {@code body} inside a transaction the caller opened. */
    Converge engine(Harness h, BiConsumer<Converge, JobContext> body) {
        return engine(h, body, b -> { });
    }

    Converge engine(Harness h, BiConsumer<Converge, JobContext> body, Consumer<Converge.Builder> more) {
        Converge[] self = new Converge[1];
        self[0] = h.engine(b -> more.accept(b.queue("default", 1).resource(spy)
                .handle(MAKE, (p, ctx) -> ctx.ledger().ensure(spy, p.key(), p.subject(), Map.of()))
                .handle(IN_TX, (p, ctx) -> {
                    try {
                        self[0].store().inTransaction(c -> {
                            body.accept(self[0], ctx);
                            return null;
                        });
                    } catch (RuntimeException e) {
                        error.set(e);
                        throw e;
                    }
                })));
        return self[0];
    }

    static JobState run(Converge engine, Job<?> job) {
        long id = engine.enqueue(job).jobId();
        await().atMost(Duration.ofSeconds(20)).until(() -> engine.job(id).orElseThrow().state().isTerminal());
        return engine.job(id).orElseThrow().state();
    }

    /** Leaves an uncertain entry without a leaf id whose owner is gone: only a lookup can settle it. */
    static LedgerEntry uncertainEntry(Converge engine, Spy spy, String key) {
        spy.leaf.timeOutNext(1);
        assertThat(run(engine, Job.of(MAKE, new Make(key, "s-" + key)))).isEqualTo(JobState.FAILED);
        LedgerEntry e = engine.ledger().entry(spy.kind(), key).orElseThrow();
        assertThat(e.state()).isEqualTo(LedgerState.UNCERTAIN);
        assertThat(e.leafId()).isNull();
        return e;
    }

    @Test
    void theOrphanScanDoesNotListTheLeafInsideATransaction() {
        try (Harness h = new Harness("h2")) {
            Converge engine = engine(h, (e, ctx) -> { });
            assertThatThrownBy(() -> engine.store().inTransaction(c -> engine.ledger().orphans(spy)))
                    .isInstanceOf(TransactionHeldAcrossCall.class).hasMessageContaining("R12");
            assertThat(spy.lists.get()).isZero();
            assertThat(engine.ledger().orphans(spy)).isEmpty();
            assertThat(spy.lists.get()).as("outside a transaction the scan runs").isEqualTo(1);
        }
    }

    @Test
    void teardownDoesNotLookUpTheLeafInsideATransaction() {
        try (Harness h = new Harness("h2")) {
            Converge engine = engine(h, (e, ctx) -> ctx.ledger().teardownSubject("s-site-1"));
            uncertainEntry(engine, spy, "site-1");
            int findsBefore = spy.finds.get();
            assertThat(run(engine, Job.of(IN_TX, new Work("teardown")))).isEqualTo(JobState.FAILED);
            assertThat(error.get()).isInstanceOf(TransactionHeldAcrossCall.class).hasMessageContaining("R12");
            assertThat(spy.finds.get()).isEqualTo(findsBefore);
            assertThat(engine.ledger().entry(spy.kind(), "site-1").orElseThrow().state())
                    .as("refused before anything was written").isEqualTo(LedgerState.UNCERTAIN);
        }
    }

    @Test
    void resolvingAStaleEntryDoesNotLookUpTheLeafInsideATransaction() {
        try (Harness h = new Harness("h2")) {
            AtomicReference<Long> entryId = new AtomicReference<>();
            ResourceTypes types = new ResourceTypes();
            types.register(spy);
            Converge engine = engine(h, (e, ctx) -> new LedgerEngine(dev.converge.EngineInternals.runtime(e), dev.converge.EngineInternals.flows(e), types, "default",
                    j -> e.enqueue(j).jobId()).onResolve(new EntryRef(entryId.get()), ctx));
            entryId.set(uncertainEntry(engine, spy, "site-2").id());
            int findsBefore = spy.finds.get();
            assertThat(run(engine, Job.of(IN_TX, new Work("resolve")))).isEqualTo(JobState.FAILED);
            assertThat(error.get()).isInstanceOf(TransactionHeldAcrossCall.class).hasMessageContaining("R12");
            assertThat(spy.finds.get()).isEqualTo(findsBefore);
            assertThat(engine.ledger().entry(spy.kind(), "site-2").orElseThrow().state())
                    .as("not taken over either").isEqualTo(LedgerState.UNCERTAIN);
        }
    }

    @Test
    void settlingAnAbandonedTokenDoesNotAskTheLeafInsideATransaction() {
        JobType<Work> send = JobType.of("guard-test.send", Work.class).withRetry(RetryPolicy.never());
        AtomicInteger asked = new AtomicInteger();
        TokenOperation<String> timesOut = new TokenOperation<>() {
            @Override
            public String name() {
                return "send";
            }

            @Override
            public String use(String token) {
                throw new AmbiguousOutcome("mail", "timed out");
            }

            @Override
            public boolean canTellIfUsed() {
                return true;
            }
        };
        try (Harness h = new Harness("h2")) {
            AtomicReference<Long> tokenId = new AtomicReference<>();
            Converge[] self = new Converge[1];
            self[0] = engine(h, (e, ctx) -> dev.converge.EngineInternals.tokens(e).onResolve(new TokenRef(tokenId.get()), ctx),
                    b -> b.handle(send, (p, ctx) -> ctx.tokens().useOnce("welcome", "site-1", timesOut)));
            Converge engine = self[0];
            engine.tokens().resolveWith("welcome", token -> {
                asked.incrementAndGet();
                return Optional.of(false);
            });
            engine.tokens().add("welcome", "t-1", "site-1");
            assertThat(run(engine, Job.of(send, new Work("send")))).isEqualTo(JobState.FAILED);
            var t = engine.tokens().forSubject("welcome", "site-1").orElseThrow();
            assertThat(t.state()).isEqualTo(TokenState.CHECKED_OUT);
            assertThat(t.usedAt()).isNotNull();
            tokenId.set(t.id());
            assertThat(run(engine, Job.of(IN_TX, new Work("settle")))).isEqualTo(JobState.FAILED);
            assertThat(error.get()).isInstanceOf(TransactionHeldAcrossCall.class).hasMessageContaining("R12");
            assertThat(asked.get()).isZero();
            assertThat(engine.tokens().forSubject("welcome", "site-1").orElseThrow().state())
                    .isEqualTo(TokenState.CHECKED_OUT);
        }
    }

    /** A type idempotent by key without lookup: teardown and the reaper resend its create instead of looking. */
    final MemoryLeaf keyed = MemoryLeaf.byIdempotencyKey("guard.license");
    static final JobType<Make> MAKE_KEYED = JobType.of("guard-test.make-keyed", Make.class)
            .withRetry(RetryPolicy.never());

    Converge keyedEngine(Harness h, BiConsumer<Converge, JobContext> body) {
        Converge[] self = new Converge[1];
        self[0] = engine(h, body, b -> b.resource(keyed).handle(MAKE_KEYED, (p, ctx) -> ctx.ledger()
                .ensure(keyed, p.key(), p.subject(), Map.of("plan", "gold"))));
        return self[0];
    }

    /** Leaves an uncertain keyed entry without a leaf id whose owner is gone: only a resent create can settle it. */
    LedgerEntry uncertainKeyedEntry(Converge engine, String key) {
        keyed.timeOutNext(1);
        assertThat(run(engine, Job.of(MAKE_KEYED, new Make(key, "s-" + key)))).isEqualTo(JobState.FAILED);
        LedgerEntry e = engine.ledger().entry(keyed.kind(), key).orElseThrow();
        assertThat(e.state()).isEqualTo(LedgerState.UNCERTAIN);
        assertThat(e.leafId()).isNull();
        return e;
    }

    @Test
    void teardownDoesNotResendAKeyedCreateInsideATransaction() {
        try (Harness h = new Harness("h2")) {
            Converge engine = keyedEngine(h, (e, ctx) -> ctx.ledger().teardownSubject("s-lic-1"));
            uncertainKeyedEntry(engine, "lic-1");
            assertThat(run(engine, Job.of(IN_TX, new Work("teardown")))).isEqualTo(JobState.FAILED);
            assertThat(error.get()).isInstanceOf(TransactionHeldAcrossCall.class).hasMessageContaining("R12");
            assertThat(keyed.totalCreates()).as("nothing was resent").isZero();
            assertThat(engine.ledger().entry(keyed.kind(), "lic-1").orElseThrow().state())
                    .as("refused before anything was written").isEqualTo(LedgerState.UNCERTAIN);
        }
    }

    @Test
    void resolvingAStaleKeyedEntryDoesNotResendItsCreateInsideATransaction() {
        try (Harness h = new Harness("h2")) {
            AtomicReference<Long> entryId = new AtomicReference<>();
            ResourceTypes types = new ResourceTypes();
            types.register(keyed);
            Converge engine = keyedEngine(h, (e, ctx) -> new LedgerEngine(dev.converge.EngineInternals.runtime(e), dev.converge.EngineInternals.flows(e), types, "default",
                    j -> e.enqueue(j).jobId()).onResolve(new EntryRef(entryId.get()), ctx));
            entryId.set(uncertainKeyedEntry(engine, "lic-2").id());
            assertThat(run(engine, Job.of(IN_TX, new Work("resolve")))).isEqualTo(JobState.FAILED);
            assertThat(error.get()).isInstanceOf(TransactionHeldAcrossCall.class).hasMessageContaining("R12");
            assertThat(keyed.totalCreates()).as("nothing was resent").isZero();
            assertThat(engine.ledger().entry(keyed.kind(), "lic-2").orElseThrow().state())
                    .as("not taken over either").isEqualTo(LedgerState.UNCERTAIN);
        }
    }
}
