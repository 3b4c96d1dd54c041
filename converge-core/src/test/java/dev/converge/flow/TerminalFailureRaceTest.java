package dev.converge.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.queue.NonRetryableException;
import dev.converge.queue.RetryPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * R8: the chain's catch and the watchdog decide to fail the same flow at the same moment, many
 * times over; the terminal-failure handler (compensation, then the failure report) runs once
 * for each flow.
 */
class TerminalFailureRaceTest {
    record Subject(String id) {
    }

    static final JobType<Subject> STEP = JobType.of("race.step", Subject.class).withRetry(RetryPolicy.never());
    static final JobType<Subject> UNDO = JobType.of("race.undo", Subject.class);
    static final JobType<Subject> REPORT = JobType.of("race.report", Subject.class);

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void chainCatchAndWatchdogFailTheSameFlowAndTheHandlerRunsOnce(String kind) throws Exception {
        int flows = 40;
        Map<String, AtomicInteger> undone = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> reported = new ConcurrentHashMap<>();
        AtomicReference<CountDownLatch> stepsStarted = new AtomicReference<>();
        AtomicReference<CountDownLatch> go = new AtomicReference<>();
        try (Harness h = new Harness(kind)) {
            Converge[] self = new Converge[1];
            Converge engine = h.engine(b -> b.queue("default", flows + 4)
                    .handle(STEP, (p, ctx) -> {
                        ctx.flows().compensateWith(Job.of(UNDO, p));
                        stepsStarted.get().countDown();
                        go.get().await();
                        Thread.sleep(java.util.concurrent.ThreadLocalRandom.current().nextInt(40)); // spread the races
                        throw new NonRetryableException("leaf refused " + p.id());
                    })
                    .handle(UNDO, (p, ctx) -> undone.computeIfAbsent(p.id(), k -> new AtomicInteger()).incrementAndGet())
                    .handle(REPORT, (p, ctx) -> reported.computeIfAbsent(p.id(), k -> new AtomicInteger())
                            .incrementAndGet()));
            self[0] = engine;
            // which side wins is up to the scheduler: race again (new flows) until each side has won
            // at least once, so the test is known to have raced both ways; every round is checked
            int watchdogTotal = 0;
            int catchTotal = 0;
            for (int round = 1; round <= 5 && (watchdogTotal == 0 || catchTotal == 0); round++) {
                int byWatchdog = raceOnce(h, engine, "r" + round + "-", flows, stepsStarted, go, undone, reported);
                watchdogTotal += byWatchdog;
                catchTotal += flows - byWatchdog;
                System.out.printf("%s round %d: the watchdog won %d of %d races, the chain's catch the rest%n", kind,
                        round, byWatchdog, flows);
            }
            assertThat(watchdogTotal).as("races won by the watchdog").isPositive();
            assertThat(catchTotal).as("races won by the chain's catch").isPositive();
        }
    }

    /** One round of {@code flows} races; checks each flow ended once; returns how many the watchdog won. */
    private static int raceOnce(Harness h, Converge engine, String prefix, int flows,
            AtomicReference<CountDownLatch> stepsStarted, AtomicReference<CountDownLatch> go,
            Map<String, AtomicInteger> undone, Map<String, AtomicInteger> reported) throws Exception {
        stepsStarted.set(new CountDownLatch(flows));
        go.set(new CountDownLatch(1));
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < flows; i++) {
            Subject s = new Subject(prefix + "s" + i);
            ids.add(engine.flows().start(Flow.of("race", s.id()).deadline(Duration.ofMillis(300))
                    .then(Job.of(STEP, s)).onFailure(Job.of(REPORT, s))).flowId());
        }
        stepsStarted.get().await();
        // every deadline has passed; now release the failing steps and run the watchdog at once
        await().atMost(Duration.ofSeconds(20)).until(() -> h.store().withConnection(c -> {
            try (var st = c.createStatement(); var rs = st.executeQuery(
                    "SELECT COUNT(*) FROM cv_flow WHERE state = 'running' AND deadline < CURRENT_TIMESTAMP")) {
                rs.next();
                return rs.getInt(1) == flows;
            }
        }));
        CyclicBarrier both = new CyclicBarrier(2);
        int[] watchdogWins = new int[1];
        Thread watchdog = new Thread(() -> {
            try {
                both.await();
                for (int round = 0; round < 60 && watchdogWins[0] < flows; round++) {
                    watchdogWins[0] += dev.converge.EngineInternals.flows(engine).failOverdue(5);
                    Thread.sleep(1);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        watchdog.start();
        both.await();
        go.get().countDown();
        watchdog.join();

        await().atMost(Duration.ofSeconds(30)).until(() -> countWithPrefix(reported, prefix) == flows);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(3))
                .until(() -> countWithPrefix(reported, prefix) == flows);
        for (int i = 0; i < flows; i++) {
            assertThat(undone.get(prefix + "s" + i)).as("compensations of " + prefix + "s" + i).hasValue(1);
            assertThat(reported.get(prefix + "s" + i)).as("failure reports of " + prefix + "s" + i).hasValue(1);
        }
        int byWatchdog = 0;
        for (long id : ids) {
            FlowView v = engine.flows().get(id).orElseThrow();
            assertThat(v.state()).isEqualTo(FlowState.FAILED);
            assertThat(v.failureReason()).matches("deadline passed|link 0 failed for good: .*");
            byWatchdog += v.failureReason().equals("deadline passed") ? 1 : 0;
            assertThat(engine.flows().history(id)).extracting(FlowEvent::to)
                    .containsExactly(FlowState.RUNNING, FlowState.COMPENSATING, FlowState.FAILED);
        }
        assertThat(byWatchdog).as("flows failed by the watchdog").isEqualTo(watchdogWins[0]);
        return byWatchdog;
    }

    private static long countWithPrefix(Map<String, AtomicInteger> seen, String prefix) {
        return seen.keySet().stream().filter(k -> k.startsWith(prefix)).count();
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void manyConcurrentFailCallsHaveExactlyOneWinnerPerFlow(String kind) throws Exception {
        try (Harness h = new Harness(kind)) {
            Converge engine = h.engine(b -> b.declare(STEP).declare(REPORT).declare(UNDO)); // works no queue
            int flows = 30;
            int callers = 6;
            for (int i = 0; i < flows; i++) {
                long id = engine.flows().start(Flow.of("fail-race", "f" + i).then(Job.of(STEP, new Subject("f" + i))))
                        .flowId();
                CyclicBarrier start = new CyclicBarrier(callers);
                AtomicInteger winners = new AtomicInteger();
                List<Thread> threads = new ArrayList<>();
                for (int t = 0; t < callers; t++) {
                    Thread th = new Thread(() -> {
                        try {
                            start.await();
                            if (engine.flows().fail(id, "caller " + Thread.currentThread().getName())) {
                                winners.incrementAndGet();
                            }
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    });
                    threads.add(th);
                    th.start();
                }
                for (Thread th : threads) {
                    th.join();
                }
                assertThat(winners).as("winners for flow " + i).hasValue(1);
            }
        }
    }
}
