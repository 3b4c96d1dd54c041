package dev.converge.chain;

import dev.converge.batch.Batch;
import dev.converge.queue.Job;
import java.util.ArrayList;
import java.util.List;

/**
 * Jobs, or whole batches, that run one after another: each link starts when the one before it
 * succeeded. {@code catch} runs once when any link fails for good; {@code finally} runs once
 * when the chain ends, however it ends.
 */
public final class Chain {
    private final String name;
    private final List<Step> links = new ArrayList<>();
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
        links.add(new Step.OneJob(job));
        return this;
    }

    public Chain then(Batch batch) {
        links.add(new Step.AllOf(batch));
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

    /** The links in order, each a job or a batch. */
    public List<Step> links() {
        return List.copyOf(links);
    }

    public Job<?> catchJob() {
        return catchJob;
    }

    public Job<?> finallyJob() {
        return finallyJob;
    }
}
