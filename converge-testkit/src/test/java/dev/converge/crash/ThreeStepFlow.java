package dev.converge.crash;

import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.batch.Batch;
import dev.converge.flow.Flow;
import dev.converge.flow.FlowState;
import dev.converge.ledger.LedgerEntry;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import dev.converge.store.Store;
import dev.converge.testkit.crash.CrashInjector;
import dev.converge.testkit.crash.CrashScenario;
import dev.converge.testkit.leaf.CountingLeaf;
import dev.converge.testkit.leaf.CountingMailbox;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The scenario the crash-point explorer runs: provision a site (a batch creating a repository and
 * a license, then a welcome email guarded by a token), then tear it down; check the leaves.
 * With {@code naive} the license is created the naive way (straight at the leaf, recorded
 * afterwards, no ledger, no claim), in a step of its own before the repository.
 */
final class ThreeStepFlow implements CrashScenario {
    record Site(String id) {
    }

    static final JobType<Site> REPO = JobType.of("explore.repo", Site.class).withRetry(fast());
    static final JobType<Site> LICENSE = JobType.of("explore.license", Site.class).withRetry(fast());
    static final JobType<Site> WELCOME = JobType.of("explore.welcome", Site.class).withRetry(fast());
    static final JobType<Site> TEARDOWN = JobType.of("explore.teardown", Site.class).withRetry(fast());

    private final boolean naive;

    ThreeStepFlow(boolean naive) {
        this.naive = naive;
    }

    static RetryPolicy fast() {
        return RetryPolicy.attempts(20).backoff(Duration.ofMillis(20)).cappedAt(Duration.ofMillis(100));
    }

    @Override
    public List<String> run(Store store, CrashInjector plan) {
        CountingLeaf repos = CountingLeaf.uniqueByKey("explore.repo");
        CountingLeaf licenses = CountingLeaf.byIdempotencyKey("explore.license");
        CountingMailbox mail = new CountingMailbox(true);
        Map<String, String> naiveRecord = new ConcurrentHashMap<>();
        Converge[] self = new Converge[1];
        try (Converge engine = Converge.builder(store).crashPlan(plan).queue("default", 4)
                .leases(l -> l.duration(Duration.ofMillis(1000)).heartbeat(Duration.ofMillis(250)).rescue(Duration.ofMillis(100)))
                .queues(q -> q.poll(Duration.ofMillis(50))).resource(repos).resource(licenses)
                .ledger(g -> g.compensationRetry(fast()))
                .handle(REPO, (s, ctx) -> ctx.ledger().ensure(repos, s.id(), Map.of()))
                .handle(LICENSE, (s, ctx) -> {
                    if (naive) {
                        var made = licenses.create(new dev.converge.ledger.CreateRequest(s.id() + ".example",
                                "converge:" + s.id(), null, Map.of()));
                        ctx.reached(CrashPoint.AFTER_LEAF_ANSWER);
                        naiveRecord.put(s.id(), made.leafId());
                    } else {
                        ctx.ledger().ensure(licenses, s.id() + ".example", Map.of());
                    }
                })
                .handle(WELCOME, (s, ctx) -> ctx.tokens().useOnce("welcome", s.id(), mail))
                .handle(TEARDOWN, (s, ctx) -> {
                    if (!ctx.ledger().teardownSubject(s.id())) {
                        return; // asked to come back later
                    }
                    String naiveId = naiveRecord.remove(s.id());
                    if (naiveId != null) {
                        licenses.delete(new dev.converge.ledger.LeafResource(naiveId, s.id() + ".example", null, Map.of()));
                    }
                })
                .build()) {
            self[0] = engine.start();
            String site = "site-1";
            engine.tokens().add("welcome", "tok-" + site, site);
            Flow provision = naive
                    // the naive license first, on its own, so that it is always the first to reach
                    // AFTER_LEAF_ANSWER and the explorer's first crash there lands in it
                    ? Flow.of("provision", site).then(Job.of(LICENSE, new Site(site))).then(Job.of(REPO, new Site(site)))
                    : Flow.of("provision", site).then(Batch.named("resources").add(Job.of(REPO, new Site(site)))
                            .add(Job.of(LICENSE, new Site(site))));
            long flow = engine.flows().start(provision.then(Job.of(WELCOME, new Site(site)))).flowId();
            await().atMost(Duration.ofSeconds(30)).until(() -> engine.flows().get(flow).orElseThrow().state().isTerminal());
            List<String> violations = new ArrayList<>();
            FlowState end = engine.flows().get(flow).orElseThrow().state();
            if (end != FlowState.SUCCEEDED) {
                violations.add("provisioning ended " + end);
            }
            check(violations, "after provisioning", repos.holdings(), Map.of(site, 1));
            check(violations, "after provisioning", licenses.holdings(), Map.of(site + ".example", 1));
            if (licenses.createsOf(site + ".example") > 1) {
                violations.add("duplicated: " + licenses.createsOf(site + ".example") + " licenses were created");
            }
            if (mail.count("tok-" + site) != 1) {
                violations.add("welcome emails sent: " + mail.count("tok-" + site));
            }
            long down = engine.flows().start(Flow.of("teardown", site).then(Job.of(TEARDOWN, new Site(site)))).flowId();
            await().atMost(Duration.ofSeconds(30)).until(() -> engine.flows().get(down).orElseThrow().state().isTerminal());
            check(violations, "after teardown", repos.holdings(), Map.of());
            check(violations, "after teardown (orphans)", licenses.holdings(), Map.of());
            for (LedgerEntry e : engine.ledger().entriesOfSubject(site)) {
                if (e.state().unresolved()) {
                    violations.add("ledger entry left " + e.state() + ": " + e.kind() + " " + e.naturalKey());
                }
            }
            return violations;
        }
    }

    private static void check(List<String> violations, String when, Map<String, Integer> held,
            Map<String, Integer> expected) {
        if (!held.equals(expected)) {
            violations.add(when + ": the leaf holds " + held + ", expected " + expected);
        }
    }
}
