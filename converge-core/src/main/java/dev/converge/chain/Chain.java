package dev.converge.chain;

import dev.converge.batch.Batch;
import dev.converge.queue.Job;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Jobs, or whole batches, that run one after another: each link starts when the one before it
 * succeeded. {@code catch} runs once when any link fails for good; {@code finally} runs once
 * when the chain ends, however it ends.
 */
public final class Chain {
    private final String name;
    private final List<Object> links = new ArrayList<>();
    private Job<?> catchJob;
    private Job<?> finallyJob;

    private Chain(String name) {
        if (name == null || name.isBlank() || name.length() > 200) {
            throw new IllegalArgumentException("chain name must be 1-200 characters");
        }
        this.name = name;
    }

    public static Chain named(String name) {
        return new Chain(name);
    }

    public Chain then(Job<?> job) {
        links.add(Objects.requireNonNull(job, "job"));
        return this;
    }

    public Chain then(Batch batch) {
        links.add(Objects.requireNonNull(batch, "batch"));
        return this;
    }

    public Chain catchWith(Job<?> job) {
        this.catchJob = job;
        return this;
    }

    public Chain andFinally(Job<?> job) {
        this.finallyJob = job;
        return this;
    }

    public String name() {
        return name;
    }

    /** Each link is a {@link Job} or a {@link Batch}. */
    public List<Object> links() {
        return List.copyOf(links);
    }

    public Job<?> catchJob() {
        return catchJob;
    }

    public Job<?> finallyJob() {
        return finallyJob;
    }
}
