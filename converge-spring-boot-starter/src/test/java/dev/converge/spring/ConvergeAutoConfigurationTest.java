package dev.converge.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.handler.JobHandler;
import dev.converge.queue.JobType;
import dev.converge.store.Store;
import dev.converge.testkit.ScratchDatabase;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/** The starter on a real PostgreSQL database through the application's own DataSource. */
class ConvergeAutoConfigurationTest {
    record Greet(String name) {
    }

    static final JobType<Greet> GREET = JobType.of("starter.greet", Greet.class);
    static final List<String> greeted = new CopyOnWriteArrayList<>();
    static ScratchDatabase db;

    @BeforeAll
    static void database() {
        db = ScratchDatabase.create("cv_starter");
    }

    @AfterAll
    static void drop() {
        db.close();
    }

    ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                        JdbcTemplateAutoConfiguration.class, ConvergeAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + db.url(), "spring.datasource.username=" + db.user(),
                        "converge.poll=100ms", "converge.shutdown-grace=2s");
    }

    @Test
    void runsAHandlerBeanAndEnqueuesInsideSpringTransactions() {
        greeted.clear();
        runner().withBean("greetHandler", TypedJobHandler.class, () -> TypedJobHandler.of(GREET, (g, ctx) -> greeted.add(g.name())))
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed().hasSingleBean(Converge.class).hasSingleBean(Store.class);
                    JdbcTemplate jdbc = greetInTwoTransactionsOneRolledBack(ctx);
                    assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM cv_job WHERE payload LIKE '%rolled-back%'",
                            Long.class)).as("the job of a rolled-back transaction").isZero();
                    assertThat(greeted).containsExactly("ada");

                    ConvergeHealthIndicator health = ctx.getBean(ConvergeHealthIndicator.class);
                    assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
                    MeterRegistry meters = ctx.getBean(MeterRegistry.class);
                    ctx.getBean(ConvergeMetrics.class).bindTo(meters); // Boot's metrics auto-configuration does this in an application
                    await().atMost(Duration.ofSeconds(10)).until(() ->
                            meters.get("converge.jobs").tag("outcome", "succeeded").functionCounter().count() >= 1);
                });
    }

    @Test
    void theSchemaPropertyPutsTheEnginesTablesApartFromTheApplicationsAndStillEnlistsTheEnqueue() {
        greeted.clear();
        try (ScratchDatabase own = ScratchDatabase.create("cv_starter_schema")) {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                            DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                            JdbcTemplateAutoConfiguration.class, ConvergeAutoConfiguration.class))
                    .withPropertyValues("spring.datasource.url=" + own.url(), "spring.datasource.username=" + own.user(),
                            "converge.poll=100ms", "converge.shutdown-grace=2s", "converge.schema=orders_engine")
                    .withBean("greetHandler", TypedJobHandler.class,
                            () -> TypedJobHandler.of(GREET, (g, ctx) -> greeted.add(g.name())))
                    .run(ctx -> {
                        assertThat(ctx).hasNotFailed();
                        JdbcTemplate jdbc = greetInTwoTransactionsOneRolledBack(ctx); // greeting: in public
                        assertThat(greeted).containsExactly("ada");
                        assertThat(jdbc.queryForList("SELECT payload FROM orders_engine.cv_job", String.class))
                                .as("only the committed transaction's job").singleElement().asString().contains("ada");
                        assertThat(jdbc.queryForList("SELECT table_schema || '.' || table_name FROM information_schema.tables"
                                + " WHERE table_name LIKE 'cv\\_%' OR table_name = 'greeting'", String.class))
                                .contains("orders_engine.cv_job", "orders_engine.cv_schema_history", "public.greeting")
                                .allMatch(t -> t.startsWith("orders_engine.") || t.equals("public.greeting"));
                    });
        }
        runner().withPropertyValues("converge.schema=Orders-Engine")
                .run(ctx -> assertThat(ctx).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("schema must be a lower-case SQL name"));
    }

    /**
     * The application's row and the engine's job in one Spring transaction, twice: the first rolled
     * back, the second committed and its job run. The application's table is where its connections
     * put it.
     */
    private static JdbcTemplate greetInTwoTransactionsOneRolledBack(
            org.springframework.context.ApplicationContext ctx) {
        TransactionalEnqueuer jobs = ctx.getBean(TransactionalEnqueuer.class);
        TransactionTemplate tx = new TransactionTemplate(ctx.getBean(
                org.springframework.transaction.PlatformTransactionManager.class));
        JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
        jdbc.execute("CREATE TABLE IF NOT EXISTS greeting (name TEXT PRIMARY KEY)");
        tx.executeWithoutResult(s -> {
            jdbc.update("INSERT INTO greeting VALUES ('rolled-back')");
            jobs.enqueue(GREET, new Greet("rolled-back"));
            s.setRollbackOnly();
        });
        tx.executeWithoutResult(s -> {
            jdbc.update("INSERT INTO greeting VALUES ('ada')");
            jobs.enqueue(GREET, new Greet("ada"));
        });
        await().atMost(Duration.ofSeconds(20)).until(() -> greeted.contains("ada"));
        return jdbc;
    }

    @Test
    void stopsTheEngineWithTheContextAndLeavesThePoolToTheApplication() {
        runner().withBean("greetHandler", TypedJobHandler.class, () -> TypedJobHandler.of(GREET, (g, ctx) -> { }))
                .run(ctx -> {
                    ConvergeLifecycle lifecycle = ctx.getBean(ConvergeLifecycle.class);
                    assertThat(lifecycle.isRunning()).isTrue();
                    ctx.close();
                    assertThat(lifecycle.isRunning()).isFalse();
                });
    }

    @Test
    void theInstallationPropertyTagsTheEnginesResources() {
        runner().withBean("greetHandler", TypedJobHandler.class, () -> TypedJobHandler.of(GREET, (g, ctx) -> { }))
                .run(ctx -> assertThat(ctx.getBean(Converge.class).ledger().tagFor("order-1"))
                        .isEqualTo("converge:default:order-1"));
        runner().withBean("greetHandler", TypedJobHandler.class, () -> TypedJobHandler.of(GREET, (g, ctx) -> { }))
                .withPropertyValues("converge.installation=staging")
                .run(ctx -> assertThat(ctx.getBean(Converge.class).ledger().tagFor("order-1"))
                        .isEqualTo("converge:staging:order-1"));
        runner().withBean("greetHandler", TypedJobHandler.class, () -> TypedJobHandler.of(GREET, (g, ctx) -> { }))
                .withPropertyValues("converge.installation=no:colons")
                .run(ctx -> assertThat(ctx).hasFailed());
    }

    @Test
    void refusesAHandlerBeanThatDoesNotNameItsJobType() {
        JobHandler<Greet> anonymous = (g, ctx) -> { };
        runner().withBean("anonymous", JobHandler.class, () -> anonymous)
                .run(ctx -> assertThat(ctx).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("does not name its job type"));
    }

    @Test
    void backsOffWithoutADataSourceOrWhenDisabled() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(ConvergeAutoConfiguration.class))
                .run(ctx -> assertThat(ctx).doesNotHaveBean(Converge.class));
        runner().withPropertyValues("converge.enabled=false").run(ctx -> assertThat(ctx).doesNotHaveBean(Converge.class));
    }
}
