package dev.converge.crash;

import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.batch.Batch;
import dev.converge.flow.Flow;
import dev.converge.flow.FlowState;
import dev.converge.flow.FlowView;
import dev.converge.ledger.CreateRequest;
import dev.converge.ledger.Ledger;
import dev.converge.ledger.LedgerEntry;
import dev.converge.ledger.LedgerState;
import dev.converge.ledger.ResourceExists;
import dev.converge.queue.Job;
import dev.converge.lease.JobLease;
import dev.converge.queue.JobType;
import dev.converge.queue.NonRetryableException;
import dev.converge.queue.RetryPolicy;
import dev.converge.store.Store;
import dev.converge.testkit.TestStores;
import dev.converge.testkit.crash.CrashInjector;
import dev.converge.testkit.leaf.CountingLeaf;
import dev.converge.testkit.leaf.CountingMailbox;
import dev.converge.token.Token;
import dev.converge.token.TokenState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Runs one {@link MatrixCase} on a fresh in-memory store and returns what went wrong: a side
 * effect that happened twice, a resource the ledger does not own or a failed flow left behind, a
 * flow that did not end within the bound after the fault, a ledger entry or token left unsettled.
 *
 * <p>The flow: a batch that ensures one resource of the case's type (plus, with a plain step, a
 * step that registers its own compensation and then acts, and with a failing sibling, a step that
 * fails for good), then a welcome email guarded by a single-use token, then (with a failing last
 * step) a step that fails for good.
 */
final class MatrixScenario {
    record Site(String id) {
    }

    static final String SITE = "site-1";
    static final String PLAIN_KEY = "plain-" + SITE;
    static final Duration LIVENESS_BOUND = Duration.ofSeconds(40);
    static final Duration LEASE = Duration.ofMillis(600);

    static RetryPolicy fast() {
        return RetryPolicy.attempts(25).backoff(Duration.ofMillis(20)).cappedAt(Duration.ofMillis(100));
    }

    static final JobType<Site> RESOURCE = JobType.of("matrix.resource", Site.class).withRetry(fast());
    static final JobType<Site> PLAIN = JobType.of("matrix.plain", Site.class).withRetry(fast());
    static final JobType<Site> UNDO_PLAIN = JobType.of("matrix.undo-plain", Site.class).withRetry(fast());
    static final JobType<Site> WELCOME = JobType.of("matrix.welcome", Site.class).withRetry(fast());
    static final JobType<Site> FAIL = JobType.of("matrix.fail", Site.class).withRetry(fast());

    private final MatrixCase c;
    private final boolean naive;
    private final CountingLeaf resources;
    private final CountingLeaf plain = CountingLeaf.uniqueByKey("matrix.plain");
    private final CountingMailbox mail;

    /** With {@code naive}, the resource step creates straight at the leaf and records nothing: the checker must catch it. */
    MatrixScenario(MatrixCase c, boolean naive) {
        this.c = c;
        this.naive = naive;
        this.resources = CountingLeaf.of("matrix.resource", c.resource().safety, c.resource().unique, c.resource().lookup);
        this.mail = new CountingMailbox(c.mailCanTell());
    }

    /** What the run did to the world, for the property's statistics. */
    record Outcome(List<String> violations, boolean faultFired, FlowState end) {
    }

    Outcome run() throws Exception {
        OffsetClock clock = new OffsetClock();
        try (Store store = TestStores.h2(true, clock)) {
            List<Converge> engines = new ArrayList<>();
            try {
                return run(store, clock, engines);
            } finally {
                for (Converge e : engines) {
                    e.close();
                }
            }
        }
    }

    private Outcome run(Store store, OffsetClock clock, List<Converge> engines) throws Exception {
        CrashPlan plan;
        PausePlan pause = null;
        CrashInjector crash = null;
        switch (c.fault()) {
            case CRASH -> plan = crash = new CrashInjector(c.point(), c.occurrence());
            case RACE -> plan = pause = new PausePlan(c.point(), c.occurrence());
            default -> plan = CrashPlan.NONE;
        }
        // node A: with a race, a lease of hours and no heartbeat before the store's clock jumps
        // past it, so that the paused attempt believes its lease good while another node holds
        // the job: the worst case, a stale worker that cannot tell it is stale without asking
        boolean race = c.fault() == MatrixCase.FaultKind.RACE;
        Converge a = engine(store, "node-a", plan, race ? Duration.ofHours(2) : LEASE,
                race ? Duration.ofHours(1) : null);
        engines.add(a);
        for (String t : c.poolBySubject() ? List.of("tok-" + SITE) : List.of("tok-a", "tok-b")) {
            a.tokens().add("welcome", t, c.poolBySubject() ? SITE : null);
        }
        Batch resourcesBatch = Batch.named("resources").add(Job.of(RESOURCE, new Site(SITE)));
        if (c.plainStep()) {
            resourcesBatch = resourcesBatch.add(Job.of(PLAIN, new Site(SITE)));
        }
        if (c.failure() == MatrixCase.Failure.SIBLING) {
            resourcesBatch = resourcesBatch.add(Job.of(FAIL, new Site(SITE)));
        }
        Flow flow = Flow.of("matrix", SITE).then(resourcesBatch).then(Job.of(WELCOME, new Site(SITE)));
        if (c.failure() == MatrixCase.Failure.LAST_STEP) {
            flow = flow.then(Job.of(FAIL, new Site(SITE)));
        }
        long flowId = a.flows().start(flow).flowId();

        if (pause != null) {
            // the race: node A's attempt stops at the point, the store's time jumps past its lease,
            // node B rescues the job and runs it again; only then does A wake up and carry on
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!pause.paused.await(20, TimeUnit.MILLISECONDS) && System.nanoTime() < until
                    && !flowEnded(a, flowId)) {
                // the point may never be reached by this shape: then there is nothing to race
            }
            if (pause.paused.getCount() == 0) {
                clock.advance(Duration.ofHours(3));
                Converge b = engine(store, "node-b", CrashPlan.NONE, LEASE, null);
                engines.add(b);
                long job = pause.lease.get().jobId();
                long epoch = pause.lease.get().epoch();
                try {
                    await().atMost(Duration.ofSeconds(20)).until(() -> b.job(job).map(r -> r.epoch() > epoch
                            && r.state().isTerminal()).orElse(true) || flowEnded(b, flowId));
                } catch (ConditionTimeoutException e) {
                    // the second delivery did not finish while the first slept: wake it anyway
                }
            }
            pause.wake.countDown();
        }

        List<String> violations = new ArrayList<>();
        Converge any = engines.get(engines.size() - 1);
        try {
            await().atMost(LIVENESS_BOUND).until(() -> flowEnded(any, flowId));
        } catch (ConditionTimeoutException e) {
            FlowView v = any.flows().get(flowId).orElseThrow();
            violations.add("stuck: the flow is still " + v.state() + " " + LIVENESS_BOUND.toSeconds()
                    + "s after the fault");
            return new Outcome(violations, fired(crash, pause), v.state());
        }
        FlowView end = any.flows().get(flowId).orElseThrow();
        boolean person = end.state() == FlowState.NEEDS_ATTENTION;
        // whatever the reaper must still settle (entries and tokens of ended owners) settles within the bound
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> person || unsettled(any).isEmpty());
        } catch (ConditionTimeoutException e) {
            violations.add("unsettled after the flow ended " + end.state() + ": " + unsettled(any));
        }
        check(violations, any, end);
        return new Outcome(violations, fired(crash, pause), end.state());
    }

    private static boolean fired(CrashInjector crash, PausePlan pause) {
        return crash != null ? crash.crashed() : pause != null && pause.paused.getCount() == 0;
    }

    private static boolean flowEnded(Converge engine, long flowId) {
        return engine.flows().get(flowId).map(v -> v.state().isTerminal()).orElse(false);
    }

    private Converge engine(Store store, String node, CrashPlan plan, Duration lease, Duration heartbeat) {
        Converge[] self = new Converge[1];
        Converge.Builder b = Converge.builder(store).nodeId(node).crashPlan(plan).queue("default", 4)
                .leases(l -> l.duration(lease).rescue(Duration.ofMillis(100)))
                .queues(q -> q.poll(Duration.ofMillis(50))
                        .shutdownGrace(Duration.ofMillis(500)))
                .ledger(g -> g.reaper(Duration.ofMillis(200), Duration.ofMillis(300)))
                .maintenance(m -> m.watchdog(Duration.ofMillis(200)))
                .resource(resources).resource(plain).ledger(g -> g.compensationRetry(fast()))
                .handle(RESOURCE, (s, ctx) -> {
                    if (naive) {
                        resources.create(new CreateRequest(s.id(), Ledger.defaultTagFor(s.id()), null, Map.of()));
                        ctx.reached(CrashPoint.AFTER_LEAF_ANSWER);
                    } else {
                        ctx.ledger().ensure(resources, s.id(), s.id(), Map.of());
                    }
                })
                .handle(PLAIN, (s, ctx) -> {
                    // what a user writes for a step the ledger does not cover: register the undo, check, act
                    ctx.flows().compensateWith(Job.of(UNDO_PLAIN, s));
                    if (ctx.cancelled()) {
                        return;
                    }
                    if (plain.find(PLAIN_KEY).isEmpty()) {
                        try {
                            plain.create(new CreateRequest(PLAIN_KEY, Ledger.defaultTagFor(s.id()), null, Map.of()));
                        } catch (ResourceExists e) {
                            // an earlier delivery made it
                        }
                    }
                })
                .handle(UNDO_PLAIN, (s, ctx) -> plain.find(PLAIN_KEY).ifPresent(plain::delete))
                .handle(WELCOME, (s, ctx) -> ctx.tokens().useOnce("welcome",
                        c.poolBySubject() ? s.id() : null, mail))
                .handle(FAIL, (s, ctx) -> {
                    throw new NonRetryableException("the matrix's failing step");
                });
        if (heartbeat != null) {
            b.leases(l -> l.heartbeat(heartbeat));
        }
        self[0] = b.build();
        self[0].tokens().resolveWith("welcome", mail::wasUsed);
        return self[0].start();
    }

    private List<String> unsettled(Converge engine) {
        List<String> out = new ArrayList<>();
        for (LedgerEntry e : engine.ledger().entriesOfSubject(SITE)) {
            if (e.state().unresolved()) {
                out.add("ledger " + e.kind() + " " + e.naturalKey() + " " + e.state());
            }
        }
        for (Token t : engine.tokens().all("welcome")) {
            if (t.state() == TokenState.CHECKED_OUT) {
                out.add("token " + t.value() + " checked out" + (t.usedAt() == null ? "" : ", used"));
            }
        }
        return out;
    }

    private void check(List<String> v, Converge engine, FlowView end) {
        String key = SITE;
        if (resources.createsOf(key) > 1) {
            v.add("duplicated: " + resources.createsOf(key) + " creates of " + resources.kind() + " " + key);
        }
        if (plain.createsOf(PLAIN_KEY) > 1) {
            v.add("duplicated: " + plain.createsOf(PLAIN_KEY) + " creates of the plain resource");
        }
        if (mail.total() > 1) {
            v.add("duplicated: " + mail.total() + " welcome emails");
        }
        long spent = engine.tokens().all("welcome").stream().filter(t -> t.state() == TokenState.SPENT).count();
        switch (end.state()) {
            case SUCCEEDED -> {
                if (c.failure() != MatrixCase.Failure.NONE) {
                    v.add("the flow succeeded though a step of it failed for good");
                }
                expectHeld(v, "resource", resources, key, 1);
                if (c.plainStep()) {
                    expectHeld(v, "plain resource", plain, PLAIN_KEY, 1);
                }
                if (mail.total() != 1 || spent != 1) {
                    v.add("a succeeded flow sent " + mail.total() + " welcome email(s) and spent " + spent + " token(s)");
                }
                Optional<LedgerEntry> e = engine.ledger().entry(resources.kind(), key);
                List<String> held = resources.list().stream().map(r -> r.leafId()).toList();
                if (e.isEmpty() || e.get().state() != LedgerState.CONFIRMED || !held.equals(List.of(e.get().leafId()))) {
                    v.add("orphans: the leaf holds " + held + ", the ledger records " + e.map(x -> x.state() + " "
                            + x.leafId()).orElse("nothing"));
                }
            }
            case FAILED -> {
                if (c.failure() == MatrixCase.Failure.NONE) {
                    v.add("the flow failed though no step fails for good: " + end.failureReason());
                }
                expectHeld(v, "orphans: resource", resources, key, 0);
                expectHeld(v, "orphans: plain resource", plain, PLAIN_KEY, 0);
                int expectedMail = c.failure() == MatrixCase.Failure.LAST_STEP ? 1 : 0;
                if (mail.total() != expectedMail || spent != expectedMail) {
                    v.add("a failed flow sent " + mail.total() + " welcome email(s) and spent " + spent
                            + " token(s), expected " + expectedMail);
                }
            }
            case NEEDS_ATTENTION -> {
                if (!c.mayNeedAPerson()) {
                    v.add("needs_attention, though every operation of this shape can be resolved: " + end.attention()
                            + " / " + end.failureReason());
                } else if (end.attention() == null && end.failureReason() == null) {
                    v.add("needs_attention without a reason");
                }
            }
            default -> v.add("the flow ended " + end.state());
        }
    }

    private static void expectHeld(List<String> v, String what, CountingLeaf leaf, String key, int n) {
        int held = leaf.holdings().getOrDefault(key, 0);
        if (held != n) {
            v.add(what + ": the leaf holds " + held + " of " + key + ", expected " + n);
        }
    }

    /** Stops the k-th attempt that reaches the point until told to wake, as a paused process would. */
    static final class PausePlan implements CrashPlan {
        final CrashPoint target;
        final int occurrence;
        final AtomicInteger reached = new AtomicInteger();
        final CountDownLatch paused = new CountDownLatch(1);
        final CountDownLatch wake = new CountDownLatch(1);
        final AtomicReference<JobLease> lease = new AtomicReference<>();

        PausePlan(CrashPoint target, int occurrence) {
            this.target = target;
            this.occurrence = occurrence;
        }

        @Override
        public void reached(CrashPoint point, JobLease l) {
            if (point == target && reached.incrementAndGet() == occurrence) {
                lease.set(l);
                paused.countDown();
                try {
                    wake.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

}
