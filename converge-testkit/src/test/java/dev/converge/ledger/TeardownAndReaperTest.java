package dev.converge.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.flow.Harness;
import dev.converge.queue.Job;
import dev.converge.queue.JobState;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import dev.converge.testkit.leaf.CountingLeaf;
import dev.converge.testkit.leaf.CountingLeaf.Fault;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Teardown is safe twice and concurrently; the reaper resolves claims that were never confirmed. */
class TeardownAndReaperTest {
    record Site(String id) {
    }

    static final JobType<Site> MAKE = JobType.of("td.make", Site.class).withRetry(RetryPolicy.never());
    static final JobType<Site> TEARDOWN = JobType.of("td.teardown", Site.class)
            .withRetry(RetryPolicy.attempts(20).backoff(Duration.ofMillis(20)).cappedAt(Duration.ofMillis(100)));

    final CountingLeaf repos = CountingLeaf.uniqueByKey("td.repo");
    final CountingLeaf sites = CountingLeaf.uniqueByKey("td.site");

    Converge engine(Harness h) {
        Converge[] self = new Converge[1];
        self[0] = h.engine(b -> b.queue("default", 4).resource(repos).resource(sites)
                .handle(MAKE, (p, ctx) -> {
                    ctx.ledger().ensure(repos, p.id(), p.id(), Map.of());
                    ctx.ledger().ensure(sites, p.id() + ".example", p.id(), Map.of());
                })
                .handle(TEARDOWN, (p, ctx) -> ctx.ledger().teardownSubject(p.id())));
        return self[0];
    }

    static void runAll(Converge engine, List<Long> ids) {
        await().atMost(Duration.ofSeconds(20)).until(() -> ids.stream()
                .allMatch(id -> engine.job(id).orElseThrow().state().isTerminal()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void teardownRunTwiceAndConcurrentlyLeavesNothingAndCountsAMissingResourceAsDeleted(String kind) {
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h);
            runAll(engine, List.of(engine.enqueue(Job.of(MAKE, new Site("s1"))).jobId()));
            assertThat(repos.holdings()).hasSize(1);
            // someone deleted the site at the leaf behind our back: "not found" must count as deleted
            sites.delete(sites.find("s1.example").orElseThrow());
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ids.add(engine.enqueue(Job.of(TEARDOWN, new Site("s1"))).jobId());
            }
            runAll(engine, ids);
            ids.forEach(id -> assertThat(engine.job(id).orElseThrow().state()).isEqualTo(JobState.SUCCEEDED));
            runAll(engine, List.of(engine.enqueue(Job.of(TEARDOWN, new Site("s1"))).jobId()));
            assertThat(repos.holdings()).isEmpty();
            assertThat(sites.holdings()).isEmpty();
            assertThat(repos.deletes()).isEqualTo(1);
            assertThat(engine.ledger().entriesOfSubject("s1")).extracting(LedgerEntry::state)
                    .containsOnly(LedgerState.DELETED);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void theReaperConfirmsAnUnrecordedResourceThatIsOursAndReleasesAClaimThatMadeNothing(String kind) {
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h);
            repos.failNext(Fault.AMBIGUOUS_AFTER_CREATE);   // s2: created, never recorded; its job gives up
            runAll(engine, List.of(engine.enqueue(Job.of(MAKE, new Site("s2"))).jobId()));
            repos.failNext(Fault.AMBIGUOUS_BEFORE_CREATE);  // s3: nothing created; its job gives up
            runAll(engine, List.of(engine.enqueue(Job.of(MAKE, new Site("s3"))).jobId()));
            assertThat(engine.ledger().entry(repos.kind(), "s2").orElseThrow().state()).isEqualTo(LedgerState.UNCERTAIN);
            assertThat(engine.ledger().entry(repos.kind(), "s3").orElseThrow().state()).isEqualTo(LedgerState.UNCERTAIN);

            assertThat(engine.ledger().reap(Duration.ZERO)).isEqualTo(2);
            await().atMost(Duration.ofSeconds(20)).until(() ->
                    !engine.ledger().entry(repos.kind(), "s2").orElseThrow().state().unresolved()
                    && !engine.ledger().entry(repos.kind(), "s3").orElseThrow().state().unresolved());
            LedgerEntry s2 = engine.ledger().entry(repos.kind(), "s2").orElseThrow();
            assertThat(s2.state()).isEqualTo(LedgerState.CONFIRMED);
            assertThat(s2.leafId()).isEqualTo(repos.find("s2").orElseThrow().leafId());
            assertThat(engine.ledger().entry(repos.kind(), "s3").orElseThrow().state()).isEqualTo(LedgerState.RELEASED);
            assertThat(engine.ledger().orphans(repos)).as("the reaper left nothing unowned").isEmpty();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2"})
    void theOrphanReportFindsWhatNoEntryOwns(String kind) {
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h);
            runAll(engine, List.of(engine.enqueue(Job.of(MAKE, new Site("s4"))).jobId()));
            LeafResource stray = repos.plant("stray", "converge:nobody");
            assertThat(engine.ledger().orphans(repos)).containsExactly(stray);
        }
    }
}
