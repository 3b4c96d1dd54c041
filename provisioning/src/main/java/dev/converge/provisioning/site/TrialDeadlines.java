package dev.converge.provisioning.site;

import dev.converge.Converge;
import dev.converge.handler.JobContext;
import dev.converge.provisioning.flow.SiteJobs;
import dev.converge.provisioning.flow.SiteJobs.SiteRef;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import dev.converge.recurring.MissedSlots;
import dev.converge.recurring.Occurrence;
import dev.converge.recurring.RecurringJob;
import dev.converge.recurring.Schedule;
import dev.converge.store.Store;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The recurring job {@code pv.trial-deadlines}: queues the reminder of every trial that ends within
 * the reminder lead (once per site: a conditional write notes it, its single-use token and its job
 * are added in the same transaction), then expires every trial past its deadline through
 * {@link Sites#expire}, the same teardown flow as a delete. Every step is conditional, so two runs
 * of a slot, or a run racing a subscription, change nothing twice. A missed slot is skipped: the
 * next run finds everything that came due meanwhile.
 */
public final class TrialDeadlines {
    /** The recurring job's name and its job type's. */
    public static final String NAME = "pv.trial-deadlines";
    public static final JobType<Occurrence> TYPE = JobType.of(NAME, Occurrence.class)
            .withRetry(RetryPolicy.attempts(5).backoff(Duration.ofSeconds(2)).cappedAt(Duration.ofMinutes(1)))
            .withTimeout(Duration.ofMinutes(5));
    /** Sites looked at per page, and pages per run: a run is bounded, the next one goes on. */
    static final int PAGE = 200;
    static final int PAGES_PER_RUN = 10;
    private static final Logger log = LoggerFactory.getLogger(TrialDeadlines.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Store store;
    private final Converge engine;
    private final SiteStore sites;
    private final Sites service;
    private final SiteJobs jobs;
    private final Duration reminder;

    /** @param reminder how long before its end a trial's reminder goes out; null for no reminders */
    public TrialDeadlines(Store store, Converge engine, SiteStore sites, Sites service, SiteJobs jobs, Duration reminder) {
        this.store = store;
        this.engine = engine;
        this.sites = sites;
        this.service = service;
        this.jobs = jobs;
        this.reminder = reminder;
    }

    /**
     * How often the job runs: a third of the reminder lead, between 1 second and 1 minute, so a
     * short trial (a demo's) is reminded and expired in time and a long one costs one scan a minute.
     * Every node derives the same from the same configuration.
     */
    public static Duration every(Duration reminder) {
        if (reminder == null) {
            return Duration.ofMinutes(1);
        }
        long seconds = Math.max(1, Math.min(60, reminder.dividedBy(3).toSeconds()));
        return Duration.ofSeconds(seconds);
    }

    public static RecurringJob<Occurrence> recurring(Duration every) {
        return RecurringJob.of(TYPE, Schedule.every(every)).withMissedSlots(MissedSlots.SKIP);
    }

    /** One run: reminders first (a site due for both is expired, not reminded), then expiries. */
    public void run(Occurrence slot, JobContext ctx) {
        int reminded = reminder == null ? 0 : remind();
        int expired = expire();
        if (reminded > 0 || expired > 0) {
            log.info("trial deadlines: {} reminder(s) queued, {} site(s) expired (slot {})", reminded, expired, slot.slot());
        }
    }

    int remind() {
        int queued = 0;
        for (int page = 0; page < PAGES_PER_RUN; page++) {
            List<Long> due = store.withConnection(c -> sites.dueForReminder(c, store.clock().sqlNow(), reminder, PAGE));
            for (long id : due) {
                boolean now = store.inTransaction(c -> {
                    if (!sites.markReminded(c, id, store.clock().sqlNow())) {
                        return false; // another run queued it, or the trial ended meanwhile
                    }
                    String subject = Site.subjectOf(id);
                    engine.tokens().add(c, SiteJobs.REMINDER_POOL, newToken(), subject);
                    engine.enqueue(c, Job.of(jobs.trialReminder, new SiteRef(id)).uniqueKey(reminderKey(id)));
                    return true;
                });
                queued += now ? 1 : 0;
            }
            if (due.size() < PAGE) {
                break;
            }
        }
        return queued;
    }

    int expire() {
        int expired = 0;
        for (int page = 0; page < PAGES_PER_RUN; page++) {
            List<Long> due = store.withConnection(c -> sites.dueForExpiry(c, store.clock().sqlNow(), PAGE));
            for (long id : due) {
                expired += service.expire(id) ? 1 : 0;
            }
            if (due.size() < PAGE) {
                break;
            }
        }
        return expired;
    }

    static String reminderKey(long siteId) {
        return "site:" + siteId + ":trial-reminder";
    }

    private static String newToken() {
        byte[] raw = new byte[18];
        RANDOM.nextBytes(raw);
        return "rem_" + Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    }
}
