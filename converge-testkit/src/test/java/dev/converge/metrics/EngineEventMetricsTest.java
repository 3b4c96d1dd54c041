package dev.converge.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.flow.Flow;
import dev.converge.flow.FlowState;
import dev.converge.flow.Harness;
import dev.converge.ledger.LeafCall;
import dev.converge.ledger.LedgerState;
import dev.converge.ledger.RepetitionSafety;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.queue.NonRetryableException;
import dev.converge.queue.RetryPolicy;
import dev.converge.testkit.leaf.CountingLeaf;
import dev.converge.testkit.leaf.CountingLeaf.Fault;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The engine's counters of ledger outcomes, leaf calls, teardowns, flows, compensations, the
 * reaper and the watchdog, read from a SimpleMeterRegistry after a known workload of flows with
 * ensure() steps, some failing and compensating.
 */
class EngineEventMetricsTest {
    record Make(String kind, String key, int times) {
    }

    static final JobType<Make> MAKE = JobType.of("em.make", Make.class)
            .withRetry(RetryPolicy.attempts(2).backoff(Duration.ofMillis(10)).cappedAt(Duration.ofMillis(10)));
    static final JobType<Make> MAKE_ONCE = JobType.of("em.make-once", Make.class).withRetry(RetryPolicy.never());
    static final JobType<String> NOTIFY = JobType.of("em.notify", String.class);
    static final JobType<String> BREAK = JobType.of("em.break", String.class);
    static final JobType<String> PARKED = JobType.of("em.parked", String.class).withQueue("idle");

    final CountingLeaf repos = CountingLeaf.uniqueByKey("em.repo");
    final CountingLeaf sites = CountingLeaf.uniqueByKey("em.site");
    final CountingLeaf mailings = CountingLeaf.unsafe("em.mail");
    final CountingLeaf reaped = CountingLeaf.uniqueByKey("em.reaped");

    static double count(MeterRegistry r, String name, String... tags) {
        // the sum over every series with these tags (others, such as outcomes, are registered at zero from the start)
        return r.find(name).tags(tags).counters().stream().mapToDouble(io.micrometer.core.instrument.Counter::count).sum();
    }

    static long calls(MeterRegistry r, String kind, String operation, String outcome) {
        return r.find("converge.leaf.call").tags("kind", kind, "operation", operation, "outcome", outcome).timers()
                .stream().mapToLong(io.micrometer.core.instrument.Timer::count).sum();
    }

    FlowState runFlow(Converge engine, Flow flow) {
        long id = engine.flows().start(flow).flowId();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            FlowState s = engine.flows().get(id).orElseThrow().state();
            return s != FlowState.RUNNING && s != FlowState.COMPENSATING;
        });
        return engine.flows().get(id).orElseThrow().state();
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void countersMatchAKnownWorkloadOfFlows(String kind) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Harness h = new Harness(kind)) {
            Converge[] self = new Converge[1];
            dev.converge.handler.JobHandler<Make> make = (m, ctx) -> {
                CountingLeaf type = Map.of(repos.kind(), repos, sites.kind(), sites, mailings.kind(), mailings,
                        reaped.kind(), reaped).get(m.kind());
                for (int i = 0; i < m.times(); i++) {
                    ctx.ledger().ensure(type, m.key(), null, Map.of());
                }
            };
            self[0] = h.engine(b -> b.telemetry(t -> t.metrics(registry).metricsSampling(null)).queue("default", 2)
                    .maintenance(m -> m.watchdog(Duration.ofMillis(200)))
                    .resource(repos).resource(sites).resource(mailings).resource(reaped)
                    .handle(MAKE, make)
                    .handle(MAKE_ONCE, (m, ctx) -> ctx.ledger().ensure(reaped, m.key(), "orphan", Map.of()))
                    .handle(NOTIFY, (p, ctx) -> ctx.ledger().call(LeafCall.of("em.notify",
                            RepetitionSafety.NATURALLY_IDEMPOTENT, key -> "sent")))
                    .handle(BREAK, (p, ctx) -> {
                        throw new NonRetryableException("step fails on purpose");
                    })
                    .declare(PARKED));
            Converge engine = self[0];

            // a: two resources and a leaf call, then a step fails: both are torn down by compensation
            assertThat(runFlow(engine, Flow.of("em.provision", "a")
                    .then(Job.of(MAKE, new Make(repos.kind(), "a", 1)))
                    .then(Job.of(MAKE, new Make(sites.kind(), "a", 1)))
                    .then(Job.of(NOTIFY, "a"))
                    .then(Job.of(BREAK, "a")))).isEqualTo(FlowState.FAILED);
            // b: the repo's create times out after creating, the retry finds and adopts it; the site is ensured twice
            repos.failNext(Fault.AMBIGUOUS_AFTER_CREATE);
            assertThat(runFlow(engine, Flow.of("em.provision", "b")
                    .then(Job.of(MAKE, new Make(repos.kind(), "b", 1)))
                    .then(Job.of(MAKE, new Make(sites.kind(), "b", 2))))).isEqualTo(FlowState.SUCCEEDED);
            // c: the site exists at the leaf under someone else's tag: a conflict, the flow fails
            sites.plant("c", "converge:someone-else");
            assertThat(runFlow(engine, Flow.of("em.provision", "c")
                    .then(Job.of(MAKE, new Make(sites.kind(), "c", 1))))).isEqualTo(FlowState.FAILED);
            // d: an unsafe create with an unknown outcome: uncertain, its teardown cannot verify, a person must look
            mailings.failNext(Fault.AMBIGUOUS_AFTER_CREATE);
            assertThat(runFlow(engine, Flow.of("em.provision", "d")
                    .then(Job.of(MAKE, new Make(mailings.kind(), "d", 1))))).isEqualTo(FlowState.NEEDS_ATTENTION);
            // e: its deadline passes while its step waits on a queue nobody works: the watchdog fails it
            long e = engine.flows().start(Flow.of("em.provision", "e").then(Job.of(PARKED, "e"))
                    .deadline(Duration.ofMillis(1))).flowId();
            await().atMost(Duration.ofSeconds(30)).until(() -> engine.flows().get(e).orElseThrow().state() == FlowState.FAILED);
            // a job (no flow) dies with its create unrecorded; the reaper finds it at the leaf and confirms it
            reaped.failNext(Fault.AMBIGUOUS_AFTER_CREATE);
            long orphanJob = engine.enqueue(Job.of(MAKE_ONCE, new Make(reaped.kind(), "r", 1))).jobId();
            await().atMost(Duration.ofSeconds(20)).until(() -> engine.job(orphanJob).orElseThrow().state().isTerminal());
            assertThat(engine.ledger().reap(Duration.ZERO)).isEqualTo(1);
            await().atMost(Duration.ofSeconds(20)).until(() ->
                    engine.ledger().entry(reaped.kind(), "r").orElseThrow().state() == LedgerState.CONFIRMED);
            await().atMost(Duration.ofSeconds(5)).until(() -> count(registry, "converge.reaper.resolved") == 1);

            // ledger outcomes per resource type
            assertThat(count(registry, "converge.ledger.ensure", "kind", "em.repo", "outcome", "created")).isEqualTo(1);
            assertThat(count(registry, "converge.ledger.ensure", "kind", "em.repo", "outcome", "ambiguous")).isEqualTo(1);
            assertThat(count(registry, "converge.ledger.ensure", "kind", "em.repo", "outcome", "adopted")).isEqualTo(1);
            assertThat(count(registry, "converge.ledger.ensure", "kind", "em.site", "outcome", "created")).isEqualTo(2);
            assertThat(count(registry, "converge.ledger.ensure", "kind", "em.site", "outcome", "existing")).isEqualTo(1);
            assertThat(count(registry, "converge.ledger.ensure", "kind", "em.site", "outcome", "conflict")).isEqualTo(1);
            assertThat(count(registry, "converge.ledger.ensure", "kind", "em.mail", "outcome", "uncertain")).isEqualTo(1);
            assertThat(count(registry, "converge.ledger.ensure", "kind", "em.reaped", "outcome", "ambiguous")).isEqualTo(1);
            assertThat(registry.find("converge.ledger.ensure").counters().stream().mapToDouble(c -> c.count()).sum())
                    .as("nothing else was ensured").isEqualTo(9);

            // leaf calls by type, operation, safety and outcome
            assertThat(calls(registry, "em.repo", "find", "absent")).isEqualTo(2);
            assertThat(calls(registry, "em.repo", "find", "found")).isEqualTo(1);
            assertThat(calls(registry, "em.repo", "create", "ok")).isEqualTo(1);
            assertThat(calls(registry, "em.repo", "create", "ambiguous")).isEqualTo(1);
            assertThat(calls(registry, "em.repo", "delete", "ok")).isEqualTo(1);
            assertThat(calls(registry, "em.site", "find", "absent")).isEqualTo(2);
            assertThat(calls(registry, "em.site", "find", "found")).isEqualTo(1);
            assertThat(calls(registry, "em.site", "create", "ok")).isEqualTo(2);
            assertThat(calls(registry, "em.site", "delete", "ok")).isEqualTo(1);
            assertThat(calls(registry, "em.mail", "create", "ambiguous")).isEqualTo(1);
            assertThat(calls(registry, "em.reaped", "find", "absent")).isEqualTo(1);
            assertThat(calls(registry, "em.reaped", "create", "ambiguous")).isEqualTo(1);
            assertThat(calls(registry, "em.reaped", "find", "found")).as("the reaper's lookup").isEqualTo(1);
            assertThat(calls(registry, "em.notify", "call", "ok")).isEqualTo(1);
            assertThat(registry.find("converge.leaf.call").tags("kind", "em.mail", "safety", "unsafe").timers().stream()
                    .mapToLong(io.micrometer.core.instrument.Timer::count).sum()).isEqualTo(1);
            assertThat(registry.find("converge.leaf.call").tags("kind", "em.repo", "operation", "find",
                    "safety", "read_only").timers()).isNotEmpty();
            assertThat(registry.find("converge.leaf.call").timers().stream().mapToLong(t -> t.count()).sum())
                    .as("nothing else was called").isEqualTo(17);

            // teardowns, compensations, flows, watchdog, reaper
            assertThat(count(registry, "converge.ledger.teardown", "kind", "em.repo", "outcome", "deleted")).isEqualTo(1);
            assertThat(count(registry, "converge.ledger.teardown", "kind", "em.site", "outcome", "deleted")).isEqualTo(1);
            assertThat(count(registry, "converge.ledger.teardown", "kind", "em.mail", "outcome", "unverifiable"))
                    .isEqualTo(1);
            assertThat(count(registry, "converge.compensations.run", "outcome", "done")).as("a: 2, c: 1 (released already), d: 1").isEqualTo(4);
            assertThat(count(registry, "converge.flows.started")).isEqualTo(5);
            assertThat(count(registry, "converge.flows.failed")).isEqualTo(4);
            assertThat(count(registry, "converge.flows.ended", "state", "succeeded")).isEqualTo(1);
            assertThat(count(registry, "converge.flows.ended", "state", "failed")).isEqualTo(3);
            assertThat(count(registry, "converge.flows.ended", "state", "needs_attention"))
                    .isEqualTo(1);
            assertThat(count(registry, "converge.watchdog.actions", "action", "deadline_failed")).isEqualTo(1);
            assertThat(count(registry, "converge.reaper.scheduled")).isEqualTo(1);
            assertThat(count(registry, "converge.reaper.resolved", "kind", "em.reaped", "outcome", "confirmed"))
                    .isEqualTo(1);
            // the queue's own meters see the same work: one failure for good per failing step, one retry (b's repo)
            assertThat(count(registry, "converge.jobs.retried", "type", "em.make")).isEqualTo(1);
            assertThat(count(registry, "converge.jobs.completed", "type", "em.break", "outcome", "failed")).isEqualTo(1);
        }
    }
}
