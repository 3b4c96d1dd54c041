package dev.converge.chain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.converge.store.internal.Dialects;
import dev.converge.Converge;
import dev.converge.ConvergeException;
import dev.converge.batch.Batch;
import dev.converge.crash.CrashPoint;
import dev.converge.crash.SimulatedCrash;
import dev.converge.flow.Harness;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.queue.NonRetryableException;
import dev.converge.queue.RetryPolicy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Chains: links in order (a link may be a batch), catch once on failure, finally once; callbacks survive worker death. */
class ChainTest {
    record Step(String name) {
    }

    static final JobType<Step> STEP = JobType.of("chain-test.step", Step.class).withRetry(RetryPolicy.never());
    static final JobType<Step> CALLBACK = JobType.of("chain-test.callback", Step.class);

    final List<String> log = new CopyOnWriteArrayList<>();
    /** The job id under which the chain's catch ran first; 0 until then. */
    final AtomicLong catchJob = new AtomicLong();

    /** An engine with a lease long enough that only a planned crash, never a slow moment, redelivers a job. */
    Converge engine(Harness h, AtomicBoolean crashNextCallback) {
        return engine(h, crashNextCallback, Duration.ofSeconds(5));
    }

    Converge engine(Harness h, AtomicBoolean crashNextCallback, Duration leaseFor) {
        return h.engine(b -> b.queue("default", 4).leases(l -> l.duration(leaseFor).heartbeat(leaseFor.dividedBy(4)))
                .crashPlan((point, lease) -> {
                    // the worker dies after the catch's handler ran, before its completion was recorded; only
                    // the catch's own delivery: the finally may run beside it and reach this point first
                    if (point == CrashPoint.BEFORE_COMPLETE && crashNextCallback.get() && lease.jobId() == catchJob.get()
                            && crashNextCallback.compareAndSet(true, false)) {
                        throw new SimulatedCrash(point);
                    }
                })
                .handle(STEP, (p, ctx) -> {
                    if (p.name().startsWith("fail")) {
                        throw new NonRetryableException("no");
                    }
                    log.add(p.name());
                })
                .handle(CALLBACK, (p, ctx) -> {
                    if (p.name().equals("catch")) {
                        catchJob.compareAndSet(0, ctx.jobId());
                    }
                    log.add("callback:" + p.name());
                }));
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void linksRunInOrderAndABatchLinkWaitsForAllItsJobs(String kind) {
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h, new AtomicBoolean());
            long id = engine.chains().start(Chain.named("order")
                    .then(Job.of(STEP, new Step("first")))
                    .then(Batch.named("middle").add(Job.of(STEP, new Step("m1"))).add(Job.of(STEP, new Step("m2"))))
                    .then(Job.of(STEP, new Step("last")))
                    .onFailure(Job.of(CALLBACK, new Step("catch"))).onEnd(Job.of(CALLBACK, new Step("finally"))));
            await().atMost(Duration.ofSeconds(20)).until(() -> log.contains("callback:finally"));
            assertThat(log.get(0)).isEqualTo("first");
            assertThat(log.subList(1, 3)).containsExactlyInAnyOrder("m1", "m2");
            assertThat(log.get(3)).isEqualTo("last");
            assertThat(log).doesNotContain("callback:catch");
            assertThat(engine.chains().progress(id).orElseThrow().state()).isEqualTo(ChainState.SUCCEEDED);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void aFailingLinkStopsTheChainAndItsCatchRunsOnceEvenWhenItsWorkerDies(String kind) {
        AtomicBoolean crash = new AtomicBoolean(true);
        try (Harness h = new Harness(kind)) {
            // the crashed delivery comes back when its lease expires: short enough to wait for
            Converge engine = engine(h, crash, Duration.ofMillis(1500));
            long id = engine.chains().start(Chain.named("doomed")
                    .then(Job.of(STEP, new Step("first"))).then(Job.of(STEP, new Step("fail-here")))
                    .then(Job.of(STEP, new Step("never")))
                    .onFailure(Job.of(CALLBACK, new Step("catch"))).onEnd(Job.of(CALLBACK, new Step("finally"))));
            await().atMost(Duration.ofSeconds(20)).until(() -> log.contains("callback:finally")
                    && engine.chains().progress(id).orElseThrow().state() == ChainState.FAILED && !crash.get());
            // one catch job was fired; its first delivery died after the handler ran and before completing,
            // so it was delivered again (at least once) and completed once
            await().atMost(Duration.ofSeconds(10)).until(() -> log.stream().filter("callback:catch"::equals).count() == 2);
            var catchJob = h.store().withConnection(c -> new dev.converge.queue.internal.JobStore(Dialects.forUrl(h.store().config().url(), h.store().config().schema()))
                    .byUniqueKey(c, "chain:" + id + ":catch")).orElseThrow();
            await().atMost(Duration.ofSeconds(10)).until(() -> engine.job(catchJob.id()).orElseThrow().state()
                    == dev.converge.queue.JobState.SUCCEEDED);
            assertThat(engine.job(catchJob.id()).orElseThrow().attempt()).isEqualTo(2);
            assertThat(log).doesNotContain("never");
            assertThat(log.stream().filter("callback:finally"::equals).count()).isEqualTo(1);
            assertThat(engine.stats().abandoned()).isGreaterThanOrEqualTo(1);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2"})
    void aChainWithAnUnknownJobTypeIsRefusedBeforeAnythingRuns(String kind) {
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h, new AtomicBoolean());
            JobType<Step> unknown = JobType.of("chain-test.nobody", Step.class);
            assertThatThrownBy(() -> engine.chains().start(Chain.named("bad").then(Job.of(STEP, new Step("a")))
                    .then(Job.of(unknown, new Step("b"))))).isInstanceOf(ConvergeException.class)
                    .hasMessageContaining("unknown job type 'chain-test.nobody'");
            assertThatThrownBy(() -> engine.chains().start(Chain.named("empty")))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(log).isEmpty();
        }
    }
}
