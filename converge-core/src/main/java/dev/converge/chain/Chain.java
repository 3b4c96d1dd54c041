package dev.converge.chain;

import dev.converge.batch.Batch;
import dev.converge.queue.Job;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Jobs, or whole batches, that run one after another: each step starts when the one before it
 * succeeded. {@code onFailure} runs once when any step fails for good; {@code onEnd} runs once
 * when the chain ends, however it ends. Immutable, like {@link Job}: each method returns a new chain.
 *
 * <pre>{@code
 * engine.chains().start(Chain.named("fulfil").then(Job.of(CHARGE, o)).then(Job.of(SHIP, o))
 *         .onFailure(Job.of(ALERT, o)));
 * }</pre>
 */
public final class Chain {
    private final String name;
    private final List<Step> links;
    private final Job<?> onFailure;
    private final Job<?> onEnd;

    private Chain(String name, List<Step> links, Job<?> onFailure, Job<?> onEnd) {
        this.name = name;
        this.links = links;
        this.onFailure = onFailure;
        this.onEnd = onEnd;
    }

    /** An empty chain; it needs at least one step before it starts. */
    public static Chain named(String name) {
        if (name == null || name.isBlank() || name.length() > 200) {
            throw new IllegalArgumentException("chain name must be 1-200 characters");
        }
        return new Chain(name, List.of(), null, null);
    }

    /** This chain with one more step: a job. */
    public Chain then(Job<?> job) {
        return then(new Step.OneJob(job));
    }

    /** This chain with one more step: a batch, whose jobs run side by side. */
    public Chain then(Batch batch) {
        return then(new Step.AllOf(batch));
    }

    private Chain then(Step step) {
        List<Step> all = new ArrayList<>(links);
        all.add(Objects.requireNonNull(step));
        return new Chain(name, List.copyOf(all), onFailure, onEnd);
    }

    /** Runs once, when a step fails for good. */
    public Chain onFailure(Job<?> job) {
        return new Chain(name, links, job, onEnd);
    }

    /** Runs once, when the chain has ended, however it ended. */
    public Chain onEnd(Job<?> job) {
        return new Chain(name, links, onFailure, job);
    }

    /** @deprecated the failure callback is {@link #onFailure}, as on a batch and a flow. */
    @Deprecated(since = "0.2.0", forRemoval = true)
    public Chain catchWith(Job<?> job) {
        return onFailure(job);
    }

    /** @deprecated the callback that always runs is {@link #onEnd}, as on a batch. */
    @Deprecated(since = "0.2.0", forRemoval = true)
    public Chain andFinally(Job<?> job) {
        return onEnd(job);
    }

    public String name() {
        return name;
    }

    /** The steps in order, each a job or a batch. */
    public List<Step> links() {
        return links;
    }

    public Job<?> onFailureJob() {
        return onFailure;
    }

    public Job<?> onEndJob() {
        return onEnd;
    }
}
