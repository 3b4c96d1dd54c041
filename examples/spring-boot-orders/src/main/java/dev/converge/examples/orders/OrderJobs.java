package dev.converge.examples.orders;

import dev.converge.flow.Flow;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import java.time.Duration;

/** The order flow's job types, and the flow itself: charge, then the CRM contact, then confirm. */
public final class OrderJobs {
    private OrderJobs() {
    }

    /** Every step of the flow carries the order's id and nothing else: the rest is read when it runs. */
    public record OrderRef(long orderId) {
    }

    static final RetryPolicy STEP_RETRY = RetryPolicy.attempts(5).backoff(Duration.ofMillis(200)).cappedAt(Duration.ofSeconds(5));

    public static final JobType<OrderRef> CHARGE = JobType.of("orders.charge", OrderRef.class).withRetry(STEP_RETRY);
    public static final JobType<OrderRef> CRM_CONTACT = JobType.of("orders.crm-contact", OrderRef.class).withRetry(STEP_RETRY);
    public static final JobType<OrderRef> CONFIRM = JobType.of("orders.confirm", OrderRef.class).withRetry(STEP_RETRY);
    public static final JobType<OrderRef> MARK_FAILED = JobType.of("orders.mark-failed", OrderRef.class).withRetry(STEP_RETRY);

    /** One flow per order: its subject is the order, so starting it twice finds the first run. */
    public static Flow flowOf(long orderId) {
        OrderRef ref = new OrderRef(orderId);
        return Flow.of("order", subject(orderId))
                .deadline(Duration.ofMinutes(5))
                .then(Job.of(CHARGE, ref))
                .then(Job.of(CRM_CONTACT, ref))
                .onSuccess(Job.of(CONFIRM, ref))
                .onFailure(Job.of(MARK_FAILED, ref)); // after the charge was refunded and the contact removed
    }

    public static String subject(long orderId) {
        return "order-" + orderId;
    }
}
