package dev.converge.provisioning.flow;

import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import java.time.Duration;

/** The job types of the provisioning and teardown flows, and their payloads. */
public final class SiteJobs {
    /** A step about one site. */
    public record SiteRef(long siteId) {
    }

    /** A step that makes one of a site's resources exist. */
    public record ResourceStep(long siteId, String kind) {
    }

    public static final String WELCOME_POOL = "welcome-email";
    /** The single-use tokens of trial reminders: one per site, added when its reminder is queued. */
    public static final String REMINDER_POOL = "trial-reminder";

    public final JobType<ResourceStep> createResource;
    public final JobType<SiteRef> deploy;
    public final JobType<SiteRef> welcome;
    public final JobType<SiteRef> confirm;
    public final JobType<SiteRef> reportFailure;
    public final JobType<SiteRef> teardown;
    public final JobType<SiteRef> reportTeardownFailure;
    public final JobType<SiteRef> trialReminder;

    /**
     * @param stepRetry how steps that call leaves retry (by their own safety: the ledger decides what
     *                  may be retried at all); reporting steps retry on the same schedule
     */
    public SiteJobs(RetryPolicy stepRetry, Duration stepTimeout) {
        createResource = JobType.of("site.create-resource", ResourceStep.class).withRetry(stepRetry).withTimeout(stepTimeout);
        deploy = JobType.of("site.deploy", SiteRef.class).withRetry(stepRetry).withTimeout(stepTimeout);
        // the email is guarded by its token; the job may retry, the send happens at most once
        welcome = JobType.of("site.send-welcome", SiteRef.class).withRetry(stepRetry).withTimeout(stepTimeout);
        confirm = JobType.of("site.confirm", SiteRef.class).withRetry(stepRetry);
        reportFailure = JobType.of("site.report-failure", SiteRef.class).withRetry(stepRetry);
        teardown = JobType.of("site.teardown", SiteRef.class).withRetry(RetryPolicy.attempts(10_000)
                .backoff(Duration.ofMillis(200)).cappedAt(Duration.ofSeconds(30))).withTimeout(stepTimeout);
        reportTeardownFailure = JobType.of("site.report-teardown-failure", SiteRef.class).withRetry(stepRetry);
        // guarded by its token like the welcome email: the job may retry, the send happens at most once
        trialReminder = JobType.of("site.trial-reminder", SiteRef.class).withRetry(stepRetry).withTimeout(stepTimeout);
    }

    private SiteJobs(SiteJobs from, JobType<SiteRef> deploy) {
        this.createResource = from.createResource;
        this.deploy = deploy;
        this.welcome = from.welcome;
        this.confirm = from.confirm;
        this.reportFailure = from.reportFailure;
        this.teardown = from.teardown;
        this.reportTeardownFailure = from.reportTeardownFailure;
        this.trialReminder = from.trialReminder;
    }

    /**
     * The same job types with the deploy step under another type name, retry and timeout kept:
     * what a release that changes the deploy step's contract looks like to a fleet mid-deploy,
     * where the nodes of the previous release have no handler for the new type (the chaos run's
     * rolling deploy).
     */
    public SiteJobs withDeployType(String name) {
        JobType<SiteRef> renamed = JobType.of(name, SiteRef.class).withRetry(deploy.retry());
        if (deploy.queue() != null) {
            renamed = renamed.withQueue(deploy.queue());
        }
        return new SiteJobs(this, deploy.timeout() == null ? renamed : renamed.withTimeout(deploy.timeout()));
    }

    public static SiteJobs defaults() {
        return new SiteJobs(RetryPolicy.attempts(8).backoff(Duration.ofMillis(500)).cappedAt(Duration.ofSeconds(30)),
                Duration.ofSeconds(60));
    }
}
