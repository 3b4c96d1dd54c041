package dev.converge.flow;

import dev.converge.batch.Batch;
import dev.converge.chain.Step;
import dev.converge.queue.Job;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The durable run of one chain of steps (jobs or batches) for one subject, e.g. provisioning
 * site 42. There is at most one run per kind and subject: starting it again returns the
 * existing run. On failure the flow compensates (registered compensations, newest first) and
 * only then runs its {@code onFailure} report; a deadline lets the watchdog fail it if it hangs.
 */
public final class Flow {
    private static final Pattern KIND = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,99}");

    private final String kind;
    private final String subject;
    private final List<Step> steps = new ArrayList<>();
    private Duration deadline;
    private Job<?> onSuccess;
    private Job<?> onFailure;

    private Flow(String kind, String subject) {
        if (kind == null || !KIND.matcher(kind).matches()) {
            throw new IllegalArgumentException("flow kind must be 1-100 characters of letters, digits and ._:- : " + kind);
        }
        if (subject == null || subject.isBlank() || subject.length() > 500) {
            throw new IllegalArgumentException("flow subject must be 1-500 characters");
        }
        this.kind = kind;
        this.subject = subject;
    }

    public static Flow of(String kind, String subject) {
        return new Flow(kind, subject);
    }

    public Flow step(Job<?> job) {
        steps.add(new Step.OneJob(job));
        return this;
    }

    public Flow step(Batch batch) {
        steps.add(new Step.AllOf(batch));
        return this;
    }

    /** The flow fails (through the watchdog) if it has not ended this long after it started. */
    public Flow deadline(Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("deadline must be positive");
        }
        this.deadline = d;
        return this;
    }

    /** Runs once when the flow succeeded. */
    public Flow onSuccess(Job<?> job) {
        this.onSuccess = job;
        return this;
    }

    /** Runs once after a failed flow's compensation ended (reporting: notifications, events). */
    public Flow onFailure(Job<?> job) {
        this.onFailure = job;
        return this;
    }

    public String kind() {
        return kind;
    }

    public String subject() {
        return subject;
    }

    /** The steps in order, each a job or a batch. */
    public List<Step> steps() {
        return List.copyOf(steps);
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
