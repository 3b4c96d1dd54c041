package dev.converge.batch;

import dev.converge.queue.Job;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A set of jobs that run in parallel, and what to do when they are done. With failures not
 * allowed (the default) the first job that fails for good cancels the batch: jobs not yet
 * started are cancelled, and running ones see {@code ctx.cancelled()} and stop before any side
 * effect (R7). {@code then}, {@code catch} and {@code finally} each run once per batch.
 *
 * <pre>{@code
 * long id = engine.batches().dispatch(Batch.named("resources")
 *         .add(Job.of(CREATE_REPO, repo)).add(Job.of(CREATE_SITE, site))
 *         .then(Job.of(DEPLOY, site)).catchWith(Job.of(ALERT, site)));
 * }</pre>
 */
public final class Batch {
    private final String name;
    private final List<Job<?>> jobs = new ArrayList<>();
    private Job<?> then;
    private Job<?> catchJob;
    private Job<?> finallyJob;
    private boolean allowFailures;

    private Batch(String name) {
        if (name == null || name.isBlank() || name.length() > 200) {
            throw new IllegalArgumentException("batch name must be 1-200 characters");
        }
        this.name = name;
    }

    public static Batch named(String name) {
        return new Batch(name);
    }

    public Batch add(Job<?> job) {
        jobs.add(Objects.requireNonNull(job, "job"));
        return this;
    }

    /** Runs once, when every job of the batch succeeded. */
    public Batch then(Job<?> job) {
        this.then = job;
        return this;
    }

    /** Runs once, when the first job of the batch fails for good. */
    public Batch catchWith(Job<?> job) {
        this.catchJob = job;
        return this;
    }

    /** Runs once, when every job of the batch has ended, however it ended. */
    public Batch andFinally(Job<?> job) {
        this.finallyJob = job;
        return this;
    }

    /** Whether a failed job leaves its siblings running (default false: fail fast). */
    public Batch allowFailures(boolean allow) {
        this.allowFailures = allow;
        return this;
    }

    public String name() {
        return name;
    }

    public List<Job<?>> jobs() {
        return List.copyOf(jobs);
    }

    public Job<?> thenJob() {
        return then;
    }

    public Job<?> catchJob() {
        return catchJob;
    }

    public Job<?> finallyJob() {
        return finallyJob;
    }

    public boolean failuresAllowed() {
        return allowFailures;
    }
}
