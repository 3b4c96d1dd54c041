package dev.converge.examples.orders;

import dev.converge.examples.orders.OrderJobs.OrderRef;
import dev.converge.examples.orders.Orders.Order;
import dev.converge.ledger.ResourceType;
import dev.converge.queue.NonRetryableException;
import dev.converge.spring.TypedJobHandler;
import java.util.Map;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The steps of the order flow. Each external effect goes through the ledger, so however often a
 * step runs (a retry, a redelivery after a crash) the provider holds one charge and the CRM one
 * contact; when the flow fails, the ledger's teardown refunds and removes them, newest first,
 * and only then does {@code MARK_FAILED} run.
 */
@Configuration(proxyBeanMethods = false)
public class OrderSteps {

    @Bean
    ResourceType chargeType(PaymentProvider payments) {
        return payments.charges();
    }

    @Bean
    ResourceType contactType(CrmContacts crm) {
        return crm.contacts();
    }

    @Bean
    TypedJobHandler<OrderRef> charge(Orders orders, ResourceType chargeType) {
        return TypedJobHandler.of(OrderJobs.CHARGE, (ref, ctx) -> {
            Order o = order(orders, ref);
            ctx.ledger().ensure(chargeType, OrderJobs.subject(o.id()), Map.of("amount_cents", o.amountCents()));
        });
    }

    @Bean
    TypedJobHandler<OrderRef> crmContact(Orders orders, ResourceType contactType) {
        return TypedJobHandler.of(OrderJobs.CRM_CONTACT, (ref, ctx) -> {
            Order o = order(orders, ref);
            ctx.ledger().ensure(contactType, OrderJobs.subject(o.id()), Map.of("email", o.email()));
        });
    }

    @Bean
    TypedJobHandler<OrderRef> confirm(Orders orders) {
        return TypedJobHandler.of(OrderJobs.CONFIRM, (ref, ctx) -> orders.move(ref.orderId(), "placed", "confirmed"));
    }

    @Bean
    TypedJobHandler<OrderRef> markFailed(Orders orders) {
        return TypedJobHandler.of(OrderJobs.MARK_FAILED, (ref, ctx) -> orders.move(ref.orderId(), "placed", "failed"));
    }

    private static Order order(Orders orders, OrderRef ref) {
        return orders.get(ref.orderId()).orElseThrow(() -> new NonRetryableException("order " + ref.orderId() + " does not exist"));
    }
}
