package dev.converge.contract;

import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** The job types and payloads the contract enqueues. */
public final class ContractJobs {
    private ContractJobs() {
    }

    /** A payload with the shapes JSON must carry faithfully: text, numbers, lists, instants, nesting. */
    public record Order(String customer, int quantity, List<String> items, Instant placedAt, Address shipTo) {
    }

    public record Address(String city, String zip) {
    }

    public record Step(int n) {
    }

    public static final JobType<Order> ORDER = JobType.of("contract.order", Order.class);
    public static final JobType<Step> STEP = JobType.of("contract.step", Step.class);
    /** Retries at once: tests about attempts should not wait for backoff. */
    public static final JobType<Step> FLAKY = JobType.of("contract.flaky", Step.class)
            .withRetry(RetryPolicy.attempts(3).backoff(Duration.ZERO));
    public static final JobType<Step> BACKOFF = JobType.of("contract.backoff", Step.class)
            .withRetry(RetryPolicy.attempts(6).backoff(Duration.ofSeconds(10)).cappedAt(Duration.ofSeconds(60)).jitter(0.2));

    public static Order order() {
        return new Order("ada", 3, List.of("anvil", "rope"), Instant.parse("2026-01-02T03:04:05.678Z"),
                new Address("Lyon", "69001"));
    }
}
