package dev.converge.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.crash.CrashPoint;
import dev.converge.crash.CrashPlan;
import dev.converge.testkit.ScratchDatabase;
import dev.converge.testkit.crash.CrashInjector;
import dev.converge.testkit.crash.CrashPointTest;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The crash-point explorer over the order flow: each invocation starts the application with an
 * injector that kills the first attempt reaching one named point (as a killed worker would die
 * there), lets the lease expire and the job be redelivered, and checks what the providers hold:
 * one charge and one contact for a confirmed order; for a refused one, its charge refunded and no
 * contact.
 */
class OrderFlowCrashTest {
    static ScratchDatabase db;
    static SimulatedProviders providers;

    @BeforeAll
    static void start() {
        db = ScratchDatabase.create("cv_orders_crash");
        providers = Providers.start();
    }

    @AfterAll
    static void stop() {
        providers.close();
        db.close();
    }

    ConfigurableApplicationContext app(CrashInjector injector) {
        return new SpringApplicationBuilder(OrdersApplication.class)
                .initializers(ctx -> ctx.getBeanFactory().registerSingleton("crashPlan", (CrashPlan) injector))
                .run("--spring.datasource.url=" + db.url(), "--spring.datasource.username=" + db.user(),
                        "--orders.payments.url=" + providers.paymentsUrl(), "--orders.crm.url=" + providers.crmUrl(),
                        "--converge.lease=1s", "--converge.heartbeat=250ms", "--converge.poll=100ms",
                        "--converge.shutdown-grace=1s", "--spring.main.banner-mode=off");
    }

    @CrashPointTest({CrashPoint.AFTER_CLAIM, CrashPoint.AFTER_LEAF_ANSWER, CrashPoint.AFTER_LEDGER_WRITE,
            CrashPoint.BEFORE_COMPLETE})
    void aConfirmedOrderIsChargedOnceWhereverItsWorkerDies(CrashInjector injector) {
        try (ConfigurableApplicationContext app = app(injector)) {
            Orders orders = app.getBean(Orders.class);
            long id = app.getBean(OrderService.class).place("crash@example.com", 500);
            await().atMost(Duration.ofSeconds(30)).until(() -> orders.get(id).orElseThrow().state().equals("confirmed"));
            String ref = OrderJobs.subject(id);
            assertThat(providers.charges.values()).filteredOn(c -> c.reference().equals(ref)).hasSize(1);
            assertThat(providers.heldCharges()).containsEntry(ref, 1);
            assertThat(providers.contacts.values()).filteredOn(c -> c.get("external_ref").equals(ref)).hasSize(1);
        }
    }

    @CrashPointTest(CrashPoint.INSIDE_TEARDOWN)
    void aRefusedOrderIsRefundedEvenIfTheTeardownDiesHalfway(CrashInjector injector) {
        try (ConfigurableApplicationContext app = app(injector)) {
            Orders orders = app.getBean(Orders.class);
            providers.crmRefusesEmail = "refused-crash@example.com";
            long id = app.getBean(OrderService.class).place("refused-crash@example.com", 700);
            await().atMost(Duration.ofSeconds(30)).until(() -> orders.get(id).orElseThrow().state().equals("failed"));
            String ref = OrderJobs.subject(id);
            assertThat(providers.charges.values()).filteredOn(c -> c.reference().equals(ref))
                    .singleElement().satisfies(c -> assertThat(c.refunded()).isTrue());
            assertThat(providers.contacts.values()).noneMatch(c -> c.get("external_ref").equals(ref));
        }
    }
}
