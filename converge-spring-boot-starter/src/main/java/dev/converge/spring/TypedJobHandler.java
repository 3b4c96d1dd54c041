package dev.converge.spring;

import dev.converge.handler.JobHandler;
import dev.converge.queue.JobType;
import java.util.Objects;

/**
 * A handler that names the job type it runs: how a {@link JobHandler} bean tells the starter
 * which jobs are its own.
 *
 * <pre>{@code
 * @Bean
 * TypedJobHandler<Order> charge(PaymentClient payments) {
 *     return TypedJobHandler.of(CHARGE, (order, ctx) -> payments.charge(ctx, order));
 * }
 * }</pre>
 *
 * @param <T> the payload type
 */
public interface TypedJobHandler<T> extends JobHandler<T> {

    /** The job type this handler runs. */
    JobType<T> type();

    /** Binds a handler (often a lambda) to its job type. */
    static <T> TypedJobHandler<T> of(JobType<T> type, JobHandler<T> handler) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(handler, "handler");
        return new TypedJobHandler<>() {
            @Override
            public JobType<T> type() {
                return type;
            }

            @Override
            public void handle(T payload, dev.converge.handler.JobContext ctx) throws Exception {
                handler.handle(payload, ctx);
            }

            @Override
            public String toString() {
                return "handler of " + type.name();
            }
        };
    }
}
