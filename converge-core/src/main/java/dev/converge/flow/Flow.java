package dev.converge.flow;

import dev.converge.batch.Batch;
import dev.converge.chain.Step;
import dev.converge.queue.Job;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The durable run of one chain of steps (jobs or batches) for one subject, e.g. provisioning
 * site 42. There is at most one run per kind and subject: starting it again returns the
 * existing run. On failure the flow compensates (registered compensations, newest first) and
 * only then runs its {@code onFailure} report; a deadline lets the watchdog fail it if it hangs.
 * Immutable, like {@link Job}: each method returns a new flow. Its steps are added with
 * {@code then}, as a {@link dev.converge.chain.Chain}'s, and its callbacks are named as a
 * {@link Batch}'s.
 *
 * <pre>{@code
 * engine.flows().start(Flow.of("order", "order-42").deadline(Duration.ofMinutes(10))
 *         .then(Job.of(CHARGE, o)).then(Job.of(SHIP, o)).onFailure(Job.of(REPORT, o)));
 * }</pre>
 */
public final class Flow {
    private static final Pattern KIND = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,99}");

    private final String kind;
    private final String subject;
    private final List<Step> steps;
    private final Duration deadline;
    private final Job<?> onSuccess;
    private final Job<?> onFailure;

    private Flow(String kind, String subject, List<Step> steps, Duration deadline, Job<?> onSuccess,
            Job<?> onFailure) {
        this.kind = kind;
        this.subject = subject;
        this.steps = steps;
        this.deadline = deadline;
        this.onSuccess = onSuccess;
        this.onFailure = onFailure;
    }

    /** A flow without steps yet; it needs at least one before it starts. */
    public static Flow of(String kind, String subject) {
        if (kind == null || !KIND.matcher(kind).matches()) {
            throw new IllegalArgumentException("flow kind must be 1-100 characters of letters, digits and ._:- : " + kind);
        }
        if (subject == null || subject.isBlank() || subject.length() > 500) {
            throw new IllegalArgumentException("flow subject must be 1-500 characters");
        }
        return new Flow(kind, subject, List.of(), null, null, null);
    }

    /** This flow with one more step: a job. */
    public Flow then(Job<?> job) {
        return then(new Step.OneJob(job));
    }

    /** This flow with one more step: a batch, whose jobs run side by side. */
    public Flow then(Batch batch) {
        return then(new Step.AllOf(batch));
    }

    private Flow then(Step step) {
        List<Step> all = new ArrayList<>(steps);
        all.add(Objects.requireNonNull(step));
        return new Flow(kind, subject, List.copyOf(all), deadline, onSuccess, onFailure);
    }

    /** @deprecated a flow's steps are added with {@link #then(Job)}, as a chain's. */
    @Deprecated(since = "0.2.0", forRemoval = true)
    public Flow step(Job<?> job) {
        return then(job);
    }

    /** @deprecated a flow's steps are added with {@link #then(Batch)}, as a chain's. */
    @Deprecated(since = "0.2.0", forRemoval = true)
    public Flow step(Batch batch) {
        return then(batch);
    }

    /** The flow fails (through the watchdog) if it has not ended this long after it started. */
    public Flow deadline(Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("deadline must be positive");
        }
        return new Flow(kind, subject, steps, d, onSuccess, onFailure);
    }

    /** Runs once when the flow succeeded. */
    public Flow onSuccess(Job<?> job) {
        return new Flow(kind, subject, steps, deadline, job, onFailure);
    }

    /** Runs once after a failed flow's compensation ended (reporting: notifications, events). */
    public Flow onFailure(Job<?> job) {
        return new Flow(kind, subject, steps, deadline, onSuccess, job);
    }

    public String kind() {
        return kind;
    }

    public String subject() {
        return subject;
    }

    /** The steps in order, each a job or a batch. */
    public List<Step> steps() {
        return steps;
    }

    public Duration deadlineOrNull() {
        return deadline;
    }

    public Job<?> onSuccessJob() {
        return onSuccess;
    }

    public Job<?> onFailureJob() {
        return onFailure;
    }
}
