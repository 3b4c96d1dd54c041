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

    public final JobType<ResourceStep> createResource;
    public final JobType<SiteRef> deploy;
    public final JobType<SiteRef> welcome;
    public final JobType<SiteRef> confirm;
    public final JobType<SiteRef> reportFailure;
    public final JobType<SiteRef> teardown;
    public final JobType<SiteRef> reportTeardownFailure;

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
    }

    public static SiteJobs defaults() {
        return new SiteJobs(RetryPolicy.attempts(8).backoff(Duration.ofMillis(500)).cappedAt(Duration.ofSeconds(30)),
                Duration.ofSeconds(60));
    }
}
