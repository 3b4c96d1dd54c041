package dev.converge.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.flow.FlowState;
import dev.converge.testkit.ScratchDatabase;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;

/** The whole application on a real PostgreSQL database, against the simulated providers over HTTP. */
// the extension is declared before @SpringBootTest so that it runs after Spring closed the context:
// the engine stops before its database is dropped
@ExtendWith(OrdersApplicationTest.DropAfterwards.class)
@SpringBootTest(properties = {"converge.lease=2s", "converge.poll=100ms", "converge.shutdown-grace=1s"})
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class OrdersApplicationTest {
    static final ScratchDatabase db = ScratchDatabase.create("cv_orders");
    static final SimulatedProviders providers = Providers.start();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry r) {
        r.add("spring.datasource.url", db::url);
        r.add("spring.datasource.username", db::user);
        r.add("orders.payments.url", providers::paymentsUrl);
        r.add("orders.crm.url", providers::crmUrl);
    }

    @Autowired
    OrderService service;
    @Autowired
    Orders orders;
    @Autowired
    Converge converge;
    @Autowired
    JdbcTemplate jdbc;
    @Autowired
    TransactionTemplate tx;

    static final class DropAfterwards implements AfterAllCallback {
        @Override
        public void afterAll(ExtensionContext context) {
            providers.close();
            db.close();
        }
    }

    String stateOf(long id) {
        return orders.get(id).orElseThrow().state();
    }

    @Test
    void anOrderIsChargedOnceAndItsBuyerBecomesACrmContact() {
        long id = service.place("ada@example.com", 4200);
        await().atMost(Duration.ofSeconds(30)).until(() -> stateOf(id).equals("confirmed"));
        String ref = OrderJobs.subject(id);
        assertThat(providers.heldCharges()).containsEntry(ref, 1);
        assertThat(providers.contacts.values()).filteredOn(c -> c.get("external_ref").equals(ref)).hasSize(1);
        assertThat(converge.flows().find("order", ref).orElseThrow().state()).isEqualTo(FlowState.SUCCEEDED);
    }

    @Test
    void aChargeWhoseAnswerIsLostIsNotMadeTwice() {
        providers.failNextChargeAfterCreate = true; // charged, then a 500: the step cannot know
        long id = service.place("grace@example.com", 1500);
        await().atMost(Duration.ofSeconds(30)).until(() -> stateOf(id).equals("confirmed"));
        assertThat(providers.heldCharges()).containsEntry(OrderJobs.subject(id), 1);
        assertThat(providers.violations()).isEmpty();
    }

    @Test
    void whenTheCrmRefusesTheChargeIsRefundedBeforeTheOrderIsMarkedFailed() {
        providers.crmRefusesEmail = "refused@example.com";
        long id = service.place("refused@example.com", 990);
        await().atMost(Duration.ofSeconds(30)).until(() -> stateOf(id).equals("failed"));
        String ref = OrderJobs.subject(id);
        assertThat(providers.charges.values()).filteredOn(c -> c.reference().equals(ref))
                .singleElement().satisfies(c -> assertThat(c.refunded()).isTrue());
        assertThat(converge.flows().find("order", ref).orElseThrow().state()).isEqualTo(FlowState.FAILED);
    }

    @Test
    void anOrderWhoseTransactionRollsBackLeavesNeitherARowNorAFlow() {
        long flowsBefore = jdbc.queryForObject("SELECT COUNT(*) FROM cv_flow", Long.class);
        long[] id = new long[1];
        tx.executeWithoutResult(status -> {
            id[0] = service.place("rollback@example.com", 100);
            status.setRollbackOnly(); // say a later write of the same request failed
        });
        assertThat(orders.get(id[0])).isEmpty();
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM cv_flow", Long.class)).isEqualTo(flowsBefore);
        assertThat(converge.flows().find("order", OrderJobs.subject(id[0]))).isEmpty();
        assertThatThrownBy(() -> service.place("not-an-email", 100)).isInstanceOf(IllegalArgumentException.class);
    }
}
