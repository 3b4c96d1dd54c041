package dev.converge.token;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.flow.Flow;
import dev.converge.flow.FlowState;
import dev.converge.flow.Harness;
import dev.converge.ledger.LeafRejected;
import dev.converge.ledger.OutcomeUnknown;
import dev.converge.queue.Job;
import dev.converge.queue.JobRow;
import dev.converge.queue.JobState;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import dev.converge.testkit.leaf.CountingMailbox;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** R11: a single-use token has an owner for its whole life; the operation it permits happens at most once. */
class TokenTest {
    record Send(String subject) {
    }

    static final JobType<Send> SEND = JobType.of("token-test.send", Send.class)
            .withRetry(RetryPolicy.attempts(4).backoff(Duration.ofMillis(20)).cappedAt(Duration.ofMillis(50)));

    final AtomicReference<Throwable> lastError = new AtomicReference<>();
    final AtomicReference<TokenUse<String>> lastUse = new AtomicReference<>();

    /** An operation named "send" that does {@code use} with the token. */
    private static TokenOperation<String> send(java.util.function.UnaryOperator<String> use) {
        return new TokenOperation<>() {
            @Override
            public String name() {
                return "send";
            }

            @Override
            public String use(String token) {
                return use.apply(token);
            }
        };
    }

    Converge engine(Harness h, TokenOperation<String> op) {
        Converge[] self = new Converge[1];
        self[0] = h.engine(b -> b.queue("default", 2).handle(SEND, (p, ctx) -> {
            try {
                lastUse.set(ctx.tokens().useOnce("welcome", p.subject(), op));
            } catch (RuntimeException e) {
                lastError.set(e);
                throw e;
            }
        }));
        return self[0];
    }

    static JobRow run(Converge engine, String subject) {
        long id = engine.enqueue(Job.of(SEND, new Send(subject))).jobId();
        await().atMost(Duration.ofSeconds(20)).until(() -> engine.job(id).orElseThrow().state().isTerminal());
        return engine.job(id).orElseThrow();
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void aTokenIsSpentOnceAndTheOperationIsNotRepeated(String kind) {
        CountingMailbox mail = new CountingMailbox(false);
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h, mail);
            engine.tokens().add("welcome", "t-1", "site-1");
            assertThat(run(engine, "site-1").state()).isEqualTo(JobState.SUCCEEDED);
            assertThat(lastUse.get().alreadySpent()).isFalse();
            assertThat(run(engine, "site-1").state()).isEqualTo(JobState.SUCCEEDED);
            assertThat(lastUse.get().alreadySpent()).isTrue();
            assertThat(mail.count("t-1")).isEqualTo(1);
            assertThat(engine.tokens().forSubject("welcome", "site-1").orElseThrow().state()).isEqualTo(TokenState.SPENT);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void aDefinitiveFailureGivesTheTokenBack(String kind) {
        AtomicInteger calls = new AtomicInteger();
        TokenOperation<String> refusesOnce = send(token -> {
            if (calls.incrementAndGet() == 1) {
                throw new LeafRejected("smtp", "550 mailbox unavailable", 550, false);
            }
            return "ok";
        });
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h, refusesOnce);
            engine.tokens().add("welcome", "t-2", "site-2");
            assertThat(run(engine, "site-2").state()).isEqualTo(JobState.FAILED);
            Token t = engine.tokens().forSubject("welcome", "site-2").orElseThrow();
            assertThat(t.state()).as("given back on the failure path").isEqualTo(TokenState.AVAILABLE);
            assertThat(t.ownerJobId()).isNull();
            assertThat(run(engine, "site-2").state()).isEqualTo(JobState.SUCCEEDED);
            assertThat(engine.tokens().forSubject("welcome", "site-2").orElseThrow().state()).isEqualTo(TokenState.SPENT);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void anUnknownSendIsResolvedByAskingTheLeafNotByRepeatingIt(String kind) {
        CountingMailbox mail = new CountingMailbox(true).dropAfterAccept(1);
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h, mail);
            engine.tokens().add("welcome", "t-3", "site-3");
            JobRow job = run(engine, "site-3");
            assertThat(job.state()).isEqualTo(JobState.SUCCEEDED);
            assertThat(job.attempt()).isEqualTo(2);
            assertThat(mail.count("t-3")).as("the second attempt looked, and did not send again").isEqualTo(1);
            assertThat(lastUse.get().alreadySpent()).isTrue();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void aTokenLeftUsedByAnOwnerThatEndedIsSettledByAskingTheLeaf(String kind) {
        CountingMailbox mail = new CountingMailbox(true);
        // "sent": dies right after the send; "lost": dies after marking the use, before anything went out
        TokenOperation<String> op = send(token -> {
            if (token.startsWith("lost")) {
                throw new dev.converge.crash.SimulatedCrash(dev.converge.crash.CrashPoint.AFTER_TOKEN_USE);
            }
            return mail.use(token);
        });
        try (Harness h = new Harness(kind)) {
            Converge[] self = new Converge[1];
            self[0] = h.engine(b -> b.queue("default", 2).leases(l -> l.duration(Duration.ofMillis(600)).heartbeat(Duration.ofMillis(200))
                            .rescue(Duration.ofMillis(100)))
                    .crashPlan((point, lease) -> {
                        if (point == dev.converge.crash.CrashPoint.AFTER_TOKEN_USE) {
                            throw new dev.converge.crash.SimulatedCrash(point);
                        }
                    })
                    .handle(SEND, (p, ctx) -> ctx.tokens().useOnce("welcome", p.subject(), op)));
            Converge engine = self[0];
            engine.tokens().resolveWith("welcome", mail::wasUsed);
            engine.tokens().add("welcome", "sent-1", "site-5");
            engine.tokens().add("welcome", "lost-1", "site-6");
            for (String site : new String[] {"site-5", "site-6"}) {
                long id = engine.enqueue(Job.of(SEND, new Send(site)).maxAttempts(1)).jobId();
                await().atMost(Duration.ofSeconds(20)).until(() -> engine.job(id).orElseThrow().state() == JobState.FAILED);
            }
            assertThat(engine.tokens().counts("welcome")).containsEntry("used_unspent", 2L);

            assertThat(engine.tokens().reap(Duration.ZERO)).isEqualTo(2);
            await().atMost(Duration.ofSeconds(20)).until(() ->
                    engine.tokens().forSubject("welcome", "site-5").orElseThrow().state() == TokenState.SPENT
                    && engine.tokens().forSubject("welcome", "site-6").orElseThrow().state() == TokenState.AVAILABLE);
            assertThat(mail.count("sent-1")).as("settled by asking, not by sending again").isEqualTo(1);
            assertThat(engine.tokens().counts("welcome")).containsEntry("used_unspent", 0L);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aUseThatCanLandLateChecksItsLeaseWithTheDatabaseLast(String kind) {
        java.util.concurrent.atomic.AtomicBoolean passedLastCheck = new java.util.concurrent.atomic.AtomicBoolean();
        Harness[] harness = new Harness[1];
        TokenOperation<String> canLandLate = new TokenOperation<>() {
            @Override
            public String name() {
                return "send";
            }

            @Override
            public String use(String token) {
                return "sent";
            }

            @Override
            public String use(String token, Runnable lastCheck) {
                // the job is taken over early (its node's session ended) while this node's lease still
                // looks valid locally: only the database can tell
                harness[0].store().withConnection(c -> {
                    try (var st = c.createStatement()) {
                        return st.executeUpdate("UPDATE cv_job SET epoch = epoch + 1 WHERE state = 'running'");
                    }
                });
                lastCheck.run();
                passedLastCheck.set(true);
                return "sent";
            }

            @Override
            public Duration abandonedUseWindow() {
                return Duration.ofSeconds(1);
            }
        };
        try (Harness h = new Harness(kind)) {
            harness[0] = h;
            Converge engine = engine(h, canLandLate);
            engine.tokens().add("welcome", "early-1", "site-8");
            long id = engine.enqueue(Job.of(SEND, new Send("site-8")).maxAttempts(1)).jobId();
            await().atMost(Duration.ofSeconds(20)).until(() -> lastError.get() != null);
            assertThat(lastError.get()).isInstanceOf(dev.converge.lease.LeaseLost.class);
            assertThat(passedLastCheck).as("the use went past its last check after the take-over").isFalse();
            assertThat(engine.job(id)).isPresent();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aNoFromTheLeafIsTrustedOnlyOnceAnAbandonedUseCanNoLongerLand(String kind) {
        CountingMailbox mail = new CountingMailbox(true);
        // the sender stalls before its point of no return (a SIGSTOP); its message lands when it wakes
        TokenOperation<String> stalls = send(token -> {
            throw new dev.converge.crash.SimulatedCrash(dev.converge.crash.CrashPoint.AFTER_TOKEN_USE);
        });
        TokenLookup lookup = new TokenLookup() {
            @Override
            public java.util.Optional<Boolean> wasUsed(String token) {
                return mail.wasUsed(token);
            }

            @Override
            public Duration abandonedUseWindow() {
                return Duration.ofMillis(1500);
            }
        };
        try (Harness h = new Harness(kind)) {
            Converge engine = h.engine(b -> b.queue("default", 2).leases(l -> l.duration(Duration.ofMillis(600))
                            .heartbeat(Duration.ofMillis(200)).rescue(Duration.ofMillis(100)))
                    .handle(SEND, (p, ctx) -> ctx.tokens().useOnce("welcome", p.subject(), stalls)));
            engine.tokens().resolveWith("welcome", lookup);
            engine.tokens().add("welcome", "late-1", "site-7");
            long id = engine.enqueue(Job.of(SEND, new Send("site-7")).maxAttempts(1)).jobId();
            await().atMost(Duration.ofSeconds(20)).until(() -> engine.job(id).orElseThrow().state() == JobState.FAILED);
            assertThat(engine.tokens().counts("welcome")).containsEntry("used_unspent", 1L);

            assertThat(engine.tokens().reap(Duration.ZERO)).isEqualTo(1);
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                Long owner = engine.tokens().forSubject("welcome", "site-7").orElseThrow().ownerJobId();
                return owner == null || owner != id;
            });
            mail.use("late-1"); // the stalled sender wakes, inside the window, and its message lands
            await().atMost(Duration.ofSeconds(20)).until(() ->
                    engine.tokens().forSubject("welcome", "site-7").orElseThrow().state() != TokenState.CHECKED_OUT);
            assertThat(engine.tokens().forSubject("welcome", "site-7").orElseThrow().state())
                    .as("settled by the late landing, not given back for a second send").isEqualTo(TokenState.SPENT);
            assertThat(mail.count("late-1")).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void anUnknownSendThatCannotBeLookedUpIsNeverRepeatedAndNeedsAPerson(String kind) {
        CountingMailbox mail = new CountingMailbox(false).dropAfterAccept(1);
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h, mail);
            engine.tokens().add("welcome", "t-4", "site-4");
            long flow = engine.flows().start(Flow.of("welcome", "site-4").then(Job.of(SEND, new Send("site-4")))).flowId();
            await().atMost(Duration.ofSeconds(20)).until(() -> engine.flows().get(flow).orElseThrow().state().isTerminal());
            assertThat(engine.flows().get(flow).orElseThrow().state()).isEqualTo(FlowState.NEEDS_ATTENTION);
            assertThat(lastError.get()).isInstanceOf(OutcomeUnknown.class);
            assertThat(mail.count("t-4")).isEqualTo(1);
            Token t = engine.tokens().forSubject("welcome", "site-4").orElseThrow();
            assertThat(t.state()).isEqualTo(TokenState.CHECKED_OUT);
            assertThat(t.usedAt()).as("its use started: it must not be handed out again").isNotNull();
            assertThat(engine.tokens().returnAbandoned(Duration.ZERO)).as("the reaper leaves a used token alone").isZero();
            assertThat(engine.tokens().counts("welcome")).containsEntry("used_unspent", 1L);
        }
    }

    /** An engine whose deliveries die right after the first token use (the send went out, nothing recorded). */
    static Converge crashingOnceAfterUse(Harness h, String pool, java.util.function.Function<Send, String> subject,
            TokenOperation<String> op) {
        java.util.concurrent.atomic.AtomicBoolean crashed = new java.util.concurrent.atomic.AtomicBoolean();
        Converge[] self = new Converge[1];
        self[0] = h.engine(b -> b.queue("default", 2).leases(l -> l.duration(Duration.ofMillis(600)).heartbeat(Duration.ofMillis(200))
                        .rescue(Duration.ofMillis(100)))
                .crashPlan((point, lease) -> {
                    if (point == dev.converge.crash.CrashPoint.AFTER_TOKEN_USE && crashed.compareAndSet(false, true)) {
                        throw new dev.converge.crash.SimulatedCrash(point);
                    }
                })
                .handle(SEND, (p, ctx) -> ctx.tokens().useOnce(pool, subject.apply(p), op)));
        return self[0];
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void aTokenWhoseSettlingFailedOnceIsNeverHandedOutAgain(String kind) {
        CountingMailbox mail = new CountingMailbox(true);
        AtomicInteger lookups = new AtomicInteger();
        try (Harness h = new Harness(kind)) {
            Converge engine = crashingOnceAfterUse(h, "welcome", Send::subject, mail);
            // the leaf's lookup fails once (a timeout): the settling job must try again, not forget the use
            engine.tokens().resolveWith("welcome", token -> {
                if (lookups.incrementAndGet() == 1) {
                    throw new dev.converge.ledger.AmbiguousOutcome("smtp", "lookup timed out");
                }
                return mail.wasUsed(token);
            });
            engine.tokens().add("welcome", "t-9", "site-9");
            long id = engine.enqueue(Job.of(SEND, new Send("site-9")).maxAttempts(1)).jobId();
            await().atMost(Duration.ofSeconds(20)).until(() -> engine.job(id).orElseThrow().state() == JobState.FAILED);
            assertThat(engine.tokens().counts("welcome")).containsEntry("used_unspent", 1L);

            await().atMost(Duration.ofSeconds(20)).until(() -> {
                engine.tokens().reap(Duration.ZERO);
                return engine.tokens().forSubject("welcome", "site-9").orElseThrow().state() != TokenState.CHECKED_OUT;
            });
            assertThat(engine.tokens().forSubject("welcome", "site-9").orElseThrow().state())
                    .as("the use happened: settled as spent, never given back").isEqualTo(TokenState.SPENT);
            engine.tokens().reap(Duration.ZERO);
            JobRow again = run(engine, "site-9");
            assertThat(again.state()).isEqualTo(JobState.SUCCEEDED);
            assertThat(mail.count("t-9")).as("one send in all").isEqualTo(1);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void aRetryOfASubjectlessUseGetsTheTokenItAlreadyUsedNotASecondOne(String kind) {
        CountingMailbox mail = new CountingMailbox(true);
        try (Harness h = new Harness(kind)) {
            Converge engine = crashingOnceAfterUse(h, "any", p -> null, mail);
            engine.tokens().add("any", "a-1", null);
            engine.tokens().add("any", "a-2", null);
            JobRow job = run(engine, "ignored");
            assertThat(job.state()).isEqualTo(JobState.SUCCEEDED);
            assertThat(job.attempt()).as("the first delivery died after the send").isEqualTo(2);
            assertThat(mail.total()).as("one use in all").isEqualTo(1);
            assertThat(engine.tokens().counts("any")).containsEntry("spent", 1L).containsEntry("available", 1L);
        }
    }
}
