package dev.converge.examples.orders;

import dev.converge.spring.TransactionalEnqueuer;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Places orders: the order row and its flow commit together, or neither does. */
@Service
public class OrderService {
    private final Orders orders;
    private final TransactionalEnqueuer jobs;

    public OrderService(Orders orders, TransactionalEnqueuer jobs) {
        this.orders = orders;
        this.jobs = jobs;
    }

    @Transactional
    public long place(String email, long amountCents) {
        if (email == null || !email.matches("[^@\\s]+@[^@\\s]+") || amountCents <= 0) {
            throw new IllegalArgumentException("an order needs a valid email and a positive amount");
        }
        long id = orders.insert(email, amountCents);
        jobs.start(OrderJobs.flowOf(id));
        return id;
    }
}
