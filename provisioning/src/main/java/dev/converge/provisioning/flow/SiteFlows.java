package dev.converge.provisioning.flow;

import dev.converge.batch.Batch;
import dev.converge.flow.Flow;
import dev.converge.provisioning.flow.SiteJobs.ResourceStep;
import dev.converge.provisioning.flow.SiteJobs.SiteRef;
import dev.converge.queue.Job;
import java.time.Duration;

/**
 * The two flows of a site. Provisioning: a fail-fast batch creating every resource, then deploy;
 * confirmation only after the flow succeeded, and the welcome email (which cannot be undone)
 * only after the confirmation, from an outbox job it queues; on failure, compensation (the ledger
 * tears down what was created, newest first), then the failure report. Teardown:
 * stop provisioning if it runs, tear down what the ledger holds, then record the deletion.
 */
public final class SiteFlows {
    public static final String PROVISION = "provision-site";
    public static final String TEARDOWN = "teardown-site";

    private final SiteJobs jobs;
    private final SiteResources resources;
    private final Duration deadline;

    public SiteFlows(SiteJobs jobs, SiteResources resources, Duration deadline) {
        this.jobs = jobs;
        this.resources = resources;
        this.deadline = deadline;
    }

    /** The provisioning flow of the site with this id, run once for its subject. */
    public Flow provisioning(long siteId, String subject) {
        return provisioning(siteId, subject, null);
    }

    /**
     * @param previous the failed provisioning flow a person retries, or null for the first attempt:
     *                 a flow runs once per subject, so each retry's flow is {@code <subject>/retry-<previous>}
     */
    public Flow provisioning(long siteId, String subject, Long previous) {
        SiteRef ref = new SiteRef(siteId);
        Batch create = Batch.named("resources");
        for (String kind : resources.planned()) {
            create = create.add(Job.of(jobs.createResource, new ResourceStep(siteId, kind)));
        }
        return Flow.of(PROVISION, previous == null ? subject : retrySubject(subject, previous)).deadline(deadline)
                .then(create)
                .then(Job.of(jobs.deploy, ref))
                .onSuccess(Job.of(jobs.confirm, ref))
                .onFailure(Job.of(jobs.reportFailure, ref));
    }

    public static String retrySubject(String subject, long previousFlow) {
        return subject + "/retry-" + previousFlow;
    }

    /** The flow a retry's subject names as the one it retried, or null for a first attempt's subject. */
    public static Long retriedFlow(String flowSubject) {
        int at = flowSubject.lastIndexOf("/retry-");
        if (at < 0) {
            return null;
        }
        try {
            return Long.parseLong(flowSubject.substring(at + "/retry-".length()));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * @param previous the site's earlier teardown flow (one that ended needing attention), or null:
     *                 a flow runs once per subject, so a new attempt gets a subject of its own
     */
    public Flow teardown(long siteId, String subject, Long previous) {
        SiteRef ref = new SiteRef(siteId);
        return Flow.of(TEARDOWN, previous == null ? subject : subject + "/after-" + previous).deadline(deadline.multipliedBy(3))
                .then(Job.of(jobs.teardown, ref))
                .onFailure(Job.of(jobs.reportTeardownFailure, ref));
    }
}
