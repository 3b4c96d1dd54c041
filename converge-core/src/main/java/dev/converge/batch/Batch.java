package dev.converge.batch;

import dev.converge.queue.Job;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * A set of jobs that run in parallel, and what to do when they are done. With failures not
 * allowed (the default) the first job that fails for good cancels the batch: jobs not yet
 * started are cancelled, and running ones see {@code ctx.cancelled()} and stop before any side
 * effect (R7). {@code onSuccess}, {@code onFailure} and {@code onEnd} each run once per batch.
 * Immutable, like {@link Job}: each method returns a new batch.
 *
 * <pre>{@code
 * long id = engine.batches().start(Batch.named("resources")
 *         .add(Job.of(CREATE_REPO, repo)).add(Job.of(CREATE_SITE, site))
 *         .onSuccess(Job.of(DEPLOY, site)).onFailure(Job.of(ALERT, site)));
 * }</pre>
 */
public final class Batch {
    private final String name;
    private final List<Job<?>> jobs;
    private final Job<?> onSuccess;
    private final Job<?> onFailure;
    private final Job<?> onEnd;
    private final boolean allowFailures;

    private Batch(String name, List<Job<?>> jobs, Job<?> onSuccess, Job<?> onFailure, Job<?> onEnd,
            boolean allowFailures) {
        this.name = name;
        this.jobs = jobs;
        this.onSuccess = onSuccess;
        this.onFailure = onFailure;
        this.onEnd = onEnd;
        this.allowFailures = allowFailures;
    }

    /** An empty batch; it needs at least one job before it starts. */
    public static Batch named(String name) {
        if (name == null || name.isBlank() || name.length() > 200) {
            throw new IllegalArgumentException("batch name must be 1-200 characters");
        }
        return new Batch(name, List.of(), null, null, null, false);
    }

    /** This batch with one more job. */
    public Batch add(Job<?> job) {
        return addAll(List.of(Objects.requireNonNull(job, "job")));
    }

    /** This batch with these jobs added, in order (one copy however many there are). */
    public Batch addAll(Collection<? extends Job<?>> more) {
        List<Job<?>> all = new ArrayList<>(jobs.size() + more.size());
        all.addAll(jobs);
        for (Job<?> j : more) {
            all.add(Objects.requireNonNull(j, "job"));
        }
        return new Batch(name, List.copyOf(all), onSuccess, onFailure, onEnd, allowFailures);
    }

    /** Runs once, when every job of the batch succeeded (or, with failures allowed, ended). */
    public Batch onSuccess(Job<?> job) {
        return new Batch(name, jobs, job, onFailure, onEnd, allowFailures);
    }

    /** Runs once, when the first job of the batch fails for good. */
    public Batch onFailure(Job<?> job) {
        return new Batch(name, jobs, onSuccess, job, onEnd, allowFailures);
    }

    /** Runs once, when every job of the batch has ended, however it ended. */
    public Batch onEnd(Job<?> job) {
        return new Batch(name, jobs, onSuccess, onFailure, job, allowFailures);
    }

    /** Whether a failed job leaves its siblings running (default false: fail fast). */
    public Batch allowFailures(boolean allow) {
        return new Batch(name, jobs, onSuccess, onFailure, onEnd, allow);
    }

    /** @deprecated the success callback is {@link #onSuccess}, as on a flow. */
    @Deprecated(since = "0.2.0", forRemoval = true)
    public Batch then(Job<?> job) {
        return onSuccess(job);
    }

    /** @deprecated the failure callback is {@link #onFailure}, as on a flow. */
    @Deprecated(since = "0.2.0", forRemoval = true)
    public Batch catchWith(Job<?> job) {
        return onFailure(job);
    }

    /** @deprecated the callback that always runs is {@link #onEnd}. */
    @Deprecated(since = "0.2.0", forRemoval = true)
    public Batch andFinally(Job<?> job) {
        return onEnd(job);
    }

    public String name() {
        return name;
    }

    public List<Job<?>> jobs() {
        return jobs;
    }

    public Job<?> onSuccessJob() {
        return onSuccess;
    }

    public Job<?> onFailureJob() {
        return onFailure;
    }

    public Job<?> onEndJob() {
        return onEnd;
    }

    public boolean failuresAllowed() {
        return allowFailures;
    }
}
