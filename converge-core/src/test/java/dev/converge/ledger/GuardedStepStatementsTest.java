package dev.converge.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.converge.Converge;
import dev.converge.batch.Batch;
import dev.converge.fixture.MemoryLeaf;
import dev.converge.fixture.ScratchDatabase;
import dev.converge.flow.Flow;
import dev.converge.flow.FlowState;
import dev.converge.queue.Job;
import dev.converge.queue.JobCancelledException;
import dev.converge.queue.JobType;
import dev.converge.queue.NonRetryableException;
import dev.converge.store.Store;
import dev.converge.token.Token;
import dev.converge.token.TokenOperation;
import dev.converge.token.TokenState;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * What a guarded step asks the database, counted at the application's own pool: on PostgreSQL the claim of a
 * fresh key in a flow also tells whether the step was called off (R7), so the step sends no probe of its
 * own before it creates; and when it was called off, nothing is created and the claim is released.
 */
class GuardedStepStatementsTest {
    /** The cancellation probe a delivery sends when it has to ask on its own. */
    static final String PROBE = "AS batch_state, (SELECT state FROM cv_flow";

    record Step(String key) {
    }

    static final JobType<Step> MAKE = JobType.of("statements.make", Step.class);
    static final JobType<Step> FAIL = JobType.of("statements.fail", Step.class);
    static final JobType<Step> SEND = JobType.of("statements.send", Step.class);

    /** A use a token permits, counted. */
    record Send(AtomicInteger sent) implements TokenOperation<String> {
        @Override
        public String name() {
            return "send";
        }

        @Override
        public String use(String token) {
            sent.incrementAndGet();
            return "sent with " + token;
        }
    }

    @Test
    void aFreshClaimInAFlowAnswersTheCancellationProbeAndATokenIsTakenForUseInOneStatement() {
        MemoryLeaf repos = MemoryLeaf.uniqueByKey("statements.repo");
        Send send = new Send(new AtomicInteger());
        List<String> sent = Collections.synchronizedList(new ArrayList<>());
        List<String> flowSent = new ArrayList<>();
        try (ScratchDatabase db = ScratchDatabase.create("cv_stmts"); HikariDataSource pool = pool(db)) {
            Store store = Store.of(counting(pool, sent));
            store.migrate();
            try (Converge engine = Converge.builder(store).queue("default", 2).resource(repos)
                    .handle(MAKE, (s, ctx) -> ctx.ledger().ensure(repos, s.key(), "site-1", Map.of()))
                    .handle(SEND, (s, ctx) -> ctx.tokens().useOnce("welcome", "site-1", send)).build().start()) {
                engine.tokens().add("welcome", "tok-1", "site-1");
                sent.clear();
                long flow = engine.flows().start(Flow.of("statements", "site-1")
                        .then(Batch.named("make").add(Job.of(MAKE, new Step("a"))).add(Job.of(MAKE, new Step("b"))))
                        .then(Job.of(MAKE, new Step("c"))).then(Job.of(SEND, new Step("mail")))).flowId();
                await().atMost(Duration.ofSeconds(20)).until(() -> engine.flows().get(flow).orElseThrow().state()
                        == FlowState.SUCCEEDED);
                flowSent.addAll(sent);
                assertThat(engine.tokens().forSubject("welcome", "site-1").orElseThrow().state()).isEqualTo(TokenState.SPENT);
            }
        }
        assertThat(repos.holdings()).hasSize(3);
        assertThat(send.sent().get()).isEqualTo(1);
        assertThat(flowSent.stream().filter(s -> s.contains(PROBE)).count())
                .as("probes sent by three fresh guarded steps, two of them in a batch, and a token's use").isZero();
        assertThat(flowSent.stream().filter(s -> s.startsWith("UPDATE cv_token") || s.startsWith("SELECT") && s.contains(
                "FROM cv_token")).count()).as("statements on the token: taken for use, then spent").isEqualTo(2);
    }

    @Test
    void aTokenIsNotTakenByAStepCalledOff() {
        Send send = new Send(new AtomicInteger());
        AtomicInteger stopped = new AtomicInteger();
        try (ScratchDatabase db = ScratchDatabase.create("cv_stmts"); HikariDataSource pool = pool(db)) {
            Store store = Store.of(pool);
            store.migrate();
            try (Converge engine = Converge.builder(store).queue("default", 2)
                    .handle(FAIL, (s, ctx) -> {
                        throw new NonRetryableException("the sibling fails");
                    })
                    .handle(SEND, (s, ctx) -> {
                        await().atMost(Duration.ofSeconds(15)).until(ctx::cancelled);
                        try {
                            ctx.tokens().useOnce("welcome", "site-3", send);
                        } catch (JobCancelledException e) {
                            stopped.incrementAndGet();
                            throw e;
                        }
                    }).build().start()) {
                engine.tokens().add("welcome", "tok-3", "site-3");
                long flow = engine.flows().start(Flow.of("statements", "site-3")
                        .then(Batch.named("send").add(Job.of(SEND, new Step("mail"))).add(Job.of(FAIL, new Step("x")))))
                        .flowId();
                await().atMost(Duration.ofSeconds(20)).until(() -> engine.flows().get(flow).orElseThrow().state()
                        == FlowState.FAILED);
                assertThat(stopped.get()).as("the step stopped before the use").isEqualTo(1);
                assertThat(send.sent().get()).isZero();
                Token t = engine.tokens().forSubject("welcome", "site-3").orElseThrow();
                assertThat(t.state()).as("the token, back in its pool").isEqualTo(TokenState.AVAILABLE);
                assertThat(t.usedAt()).isNull();
            }
        }
    }

    @Test
    void aStepCalledOffBeforeItsClaimCreatesNothingAndReleasesTheClaim() {
        MemoryLeaf repos = MemoryLeaf.uniqueByKey("statements.repo");
        AtomicInteger stopped = new AtomicInteger();
        try (ScratchDatabase db = ScratchDatabase.create("cv_stmts"); HikariDataSource pool = pool(db)) {
            Store store = Store.of(pool);
            store.migrate();
            try (Converge engine = Converge.builder(store).queue("default", 2).resource(repos)
                    .handle(FAIL, (s, ctx) -> {
                        throw new NonRetryableException("the sibling fails");
                    })
                    .handle(MAKE, (s, ctx) -> {
                        // waits until the sibling's failure has cancelled the batch, then asks for its resource
                        await().atMost(Duration.ofSeconds(15)).until(ctx::cancelled);
                        try {
                            ctx.ledger().ensure(repos, s.key(), "site-2", Map.of());
                        } catch (JobCancelledException e) {
                            stopped.incrementAndGet();
                            throw e;
                        }
                    }).build().start()) {
                long flow = engine.flows().start(Flow.of("statements", "site-2")
                        .then(Batch.named("make").add(Job.of(MAKE, new Step("late"))).add(Job.of(FAIL, new Step("x")))))
                        .flowId();
                await().atMost(Duration.ofSeconds(20)).until(() -> engine.flows().get(flow).orElseThrow().state()
                        == FlowState.FAILED);
                assertThat(stopped.get()).as("the step stopped at its claim").isEqualTo(1);
                assertThat(repos.totalCreates()).as("creates after the batch was cancelled").isZero();
                assertThat(engine.ledger().entry(repos.kind(), "late").orElseThrow().state())
                        .isEqualTo(LedgerState.RELEASED);
            }
        }
    }

    private static HikariDataSource pool(ScratchDatabase db) {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(db.url());
        c.setUsername(db.user());
        c.setMaximumPoolSize(8);
        return new HikariDataSource(c);
    }

    /** The pool's connections, with the text of every statement prepared on them noted. */
    private static DataSource counting(DataSource pool, List<String> sent) {
        return (DataSource) Proxy.newProxyInstance(GuardedStepStatementsTest.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, m, args) -> {
                    Object out = invoke(m, pool, args);
                    if (!m.getName().equals("getConnection")) {
                        return out;
                    }
                    Connection real = (Connection) out;
                    return Proxy.newProxyInstance(GuardedStepStatementsTest.class.getClassLoader(),
                            new Class<?>[] {Connection.class}, (p, cm, cargs) -> {
                                if (cm.getName().startsWith("prepare") && cargs != null && cargs[0] instanceof String sql) {
                                    sent.add(sql);
                                }
                                return invoke(cm, real, cargs);
                            });
                });
    }

    private static Object invoke(java.lang.reflect.Method m, Object target, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
