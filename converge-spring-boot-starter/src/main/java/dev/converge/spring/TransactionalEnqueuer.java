package dev.converge.spring;

import dev.converge.Converge;
import dev.converge.flow.Flow;
import dev.converge.flow.FlowRun;
import dev.converge.queue.EnqueueResult;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import java.sql.Connection;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Enqueues jobs and starts flows inside the caller's Spring transaction when there is one: the
 * job or flow exists if and only if the transaction commits, like the business rows written
 * beside it. Outside a transaction each call is a unit of work of its own.
 *
 * <pre>{@code
 * @Transactional
 * public Order place(NewOrder o) {
 *     Order order = orders.save(o);
 *     jobs.enqueue(Job.of(FULFIL, new Fulfil(order.id())));   // rolled back with the order
 *     return order;
 * }
 * }</pre>
 */
public final class TransactionalEnqueuer {
    private final Converge engine;
    private final DataSource dataSource;

    public TransactionalEnqueuer(Converge engine, DataSource dataSource) {
        this.engine = engine;
        this.dataSource = dataSource;
    }

    public <T> EnqueueResult enqueue(JobType<T> type, T payload) {
        return enqueue(Job.of(type, payload));
    }

    public <T> EnqueueResult enqueue(Job<T> job) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            return engine.enqueue(job);
        }
        // the transaction's own connection (bound by DataSourceTransactionManager or JPA's), never a new one
        Connection c = DataSourceUtils.getConnection(dataSource);
        try {
            return engine.enqueue(c, job);
        } finally {
            DataSourceUtils.releaseConnection(c, dataSource);
        }
    }

    /** Starts a flow (or finds the run already started for its kind and subject). */
    public FlowRun start(Flow flow) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            return engine.flows().start(flow);
        }
        Connection c = DataSourceUtils.getConnection(dataSource);
        try {
            return engine.flows().start(c, flow);
        } finally {
            DataSourceUtils.releaseConnection(c, dataSource);
        }
    }
}
