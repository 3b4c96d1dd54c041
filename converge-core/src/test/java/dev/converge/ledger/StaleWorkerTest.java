package dev.converge.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.store.internal.Dialects;
import dev.converge.queue.internal.Decision;
import dev.converge.Converge;
import dev.converge.crash.CrashPoint;
import dev.converge.flow.Harness;
import dev.converge.ledger.internal.LedgerStore;
import dev.converge.queue.Job;
import dev.converge.lease.JobLease;
import dev.converge.queue.JobState;
import dev.converge.queue.internal.JobStore;
import dev.converge.queue.JobType;
import dev.converge.queue.internal.LeasedJob;
import dev.converge.queue.internal.NewJob;
import dev.converge.queue.RetryPolicy;
import dev.converge.store.Store;
import dev.converge.fixture.SettableClock;
import dev.converge.fixture.MemoryLeaf;
import dev.converge.token.internal.TokenStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A delivery whose lease expired and moved on cannot confirm a ledger entry or spend a token. */
class StaleWorkerTest {

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void theStoreRefusesAStaleDeliverysLedgerAndTokenWrites(String kind) throws Exception {
        SettableClock clock = SettableClock.atNow();
        try (Harness h = new Harness(kind, clock)) {
            Store store = h.store();
            JobStore jobs = new JobStore(Dialects.forUrl(store.config().url(), store.config().schema()));
            LedgerStore ledger = new LedgerStore(Dialects.forUrl(store.config().url(), store.config().schema()));
            TokenStore tokens = new TokenStore(Dialects.forUrl(store.config().url(), store.config().schema()));
            store.withConnection(c -> jobs.insert(c, NewJob.simple("default", "stale", "{}", 3), clock.sqlNow()));
            JobLease first = store.withConnection(c -> jobs.lease(c, "default", 1, "node-a", 1000, clock.sqlNow()))
                    .get(0).lease();
            assertThat(store.<java.util.Optional<dev.converge.ledger.LedgerEntry>>withConnection(c -> ledger.insertClaim(c,
                    "repo", "k", null, "s", RepetitionSafety.UNSAFE, null, first, clock.sqlNow()))).isPresent();
            store.withConnection(c -> tokens.add(c, "p", "tok", "s", clock.sqlNow()));
            long tokenId = store.withConnection(c -> tokens.bySubject(c, "p", "s")).orElseThrow().id();
            assertThat((boolean) store.withConnection(c -> tokens.checkout(c, tokenId, "a", first, clock.sqlNow()))).isTrue();

            // the first delivery stalls; its lease expires; the job is rescued and delivered again
            clock.advance(Duration.ofSeconds(5));
            store.inTransaction(c -> {
                List<LeasedJob> expired = jobs.expiredLeases(c, 10, clock.sqlNow());
                return jobs.retry(c, List.of(new Decision.Retry(expired.get(0).lease(), 0, "lease expired", false)),
                        clock.sqlNow());
            });
            JobLease second = store.withConnection(c -> jobs.lease(c, "default", 1, "node-b", 1000, clock.sqlNow()))
                    .get(0).lease();
            assertThat(second.epoch()).isEqualTo(first.epoch() + 1);

            long entryId = store.withConnection(c -> ledger.byKey(c, "repo", "k")).orElseThrow().id();
            assertThat((boolean) store.withConnection(c -> ledger.confirm(c, entryId, "leaf-1", Map.of(), first, clock.sqlNow())))
                    .as("stale confirm").isFalse();
            assertThat((boolean) store.withConnection(c -> ledger.markUncertain(c, entryId, "x", first, clock.sqlNow())))
                    .as("stale mark").isFalse();
            assertThat((boolean) store.withConnection(c -> tokens.markUsing(c, tokenId, first, clock.sqlNow()))).isFalse();
            assertThat((boolean) store.withConnection(c -> tokens.spend(c, tokenId, first, clock.sqlNow()))).as("stale spend").isFalse();
            assertThat((boolean) store.withConnection(c -> tokens.giveBack(c, tokenId, first, clock.sqlNow()))).isFalse();

            // the current delivery takes the entry and the token over, and only then may write
            LedgerEntry e = store.withConnection(c -> ledger.byId(c, entryId)).orElseThrow();
            assertThat((boolean) store.withConnection(c -> ledger.confirm(c, entryId, "leaf-1", Map.of(), second, clock.sqlNow())))
                    .as("not yet the owner").isFalse();
            assertThat((boolean) store.withConnection(c -> ledger.takeOver(c, e, null, second, clock.sqlNow()))).isTrue();
            assertThat((boolean) store.withConnection(c -> ledger.confirm(c, entryId, "leaf-1", Map.of(), second, clock.sqlNow())))
                    .isTrue();
            var t = store.withConnection(c -> tokens.byId(c, tokenId)).orElseThrow();
            assertThat((boolean) store.withConnection(c -> tokens.takeOver(c, t, "b", second, clock.sqlNow()))).isTrue();
            assertThat((boolean) store.withConnection(c -> tokens.spend(c, tokenId, second, clock.sqlNow()))).isTrue();
        }
    }

    record Make(String key) {
    }

    static final JobType<Make> MAKE = JobType.of("stale.make", Make.class).withRetry(RetryPolicy.attempts(5));

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aPausedWorkerThatWakesUpAfterItsLeaseMovedOnIsFencedAndTheResourceExistsOnce(String kind) throws Exception {
        SettableClock clock = SettableClock.atNow();
        MemoryLeaf repos = MemoryLeaf.uniqueByKey("stale.repo");
        CountDownLatch paused = new CountDownLatch(1);
        CountDownLatch wake = new CountDownLatch(1);
        try (Harness h = new Harness(kind, clock)) {
            Converge[] a = new Converge[1];
            // node A: its attempt stops right after the leaf answered (as if the process were SIGSTOPped);
            // a lease of hours and no beat before the clock jumps keep it from noticing on its own
            a[0] = h.engine(b -> b.nodeId("node-a").queue("default", 1).queues(q -> q.prefetch(0)).resource(repos)
                    .leases(l -> l.duration(Duration.ofHours(2)).heartbeat(Duration.ofHours(1)).rescue(Duration.ofHours(1)))
                    .crashPlan((point, lease) -> {
                        if (point == CrashPoint.AFTER_LEAF_ANSWER && paused.getCount() > 0) {
                            paused.countDown();
                            try {
                                wake.await(30, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                    })
                    .handle(MAKE, (p, ctx) -> ctx.ledger().ensure(repos, p.key(), "s", Map.of())));
            long jobId = a[0].enqueue(Job.of(MAKE, new Make("site-x"))).jobId();
            assertThat(paused.await(20, TimeUnit.SECONDS)).isTrue();
            // node A's one slot is held by the paused attempt, and it will not beat for an hour

            // time passes by the database clock; node B rescues the job and finishes it
            clock.advance(Duration.ofHours(3));
            Converge[] b = new Converge[1];
            b[0] = h.engine(h.anotherStore(), x -> x.nodeId("node-b").queue("default", 1).resource(repos)
                    .leases(l -> l.duration(Duration.ofHours(2)).heartbeat(Duration.ofHours(1)).rescue(Duration.ofMillis(100)))
                    .handle(MAKE, (p, ctx) -> ctx.ledger().ensure(repos, p.key(), "s", Map.of())));
            await().atMost(Duration.ofSeconds(20)).until(() -> b[0].job(jobId).orElseThrow().state() == JobState.SUCCEEDED);
            LedgerEntry adopted = b[0].ledger().entry(repos.kind(), "site-x").orElseThrow();
            assertThat(adopted.state()).isEqualTo(LedgerState.CONFIRMED);

            // node A wakes up and tries to record what it created
            wake.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> a[0].stats().leaseLost() + a[0].stats().abandoned() >= 1);
            LedgerEntry after = b[0].ledger().entry(repos.kind(), "site-x").orElseThrow();
            assertThat(after.ownerEpoch()).as("the stale write did not land").isEqualTo(adopted.ownerEpoch());
            assertThat(after.leafId()).isEqualTo(adopted.leafId());
            assertThat(repos.holdings()).as("exactly one repository, the one B adopted").containsExactly("site-x");
            assertThat(repos.totalCreates()).isEqualTo(1);
        }
    }
}
