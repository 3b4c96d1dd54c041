package dev.converge.provisioning.site;

import dev.converge.provisioning.config.ProvisioningConfig;
import dev.converge.provisioning.flow.SiteResources;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** Writes a site's receipt from what is stored and what is configured: deterministic, never invented. */
public final class Receipts {
    static final String NO_TRIAL_NOTE = "No trial window is configured for this service: use the window stated in "
            + "your instructions, and never state a duration of your own.";

    static final String NO_DEADLINE_NOTE = "This site was requested before trials had a deadline: it does not expire "
            + "on its own.";

    private final ProvisioningConfig config;
    private final SiteResources resources;
    private final Supplier<Instant> now;

    public Receipts(ProvisioningConfig config, SiteResources resources) {
        this(config, resources, Instant::now);
    }

    /** @param now the clock the days left are counted by */
    public Receipts(ProvisioningConfig config, SiteResources resources, Supplier<Instant> now) {
        this.config = config;
        this.resources = resources;
        this.now = now;
    }

    public Receipt of(Site site) {
        String deadline = site.trialEndsAt() == null ? null
                : site.trialEndsAt().truncatedTo(ChronoUnit.SECONDS).toString();
        Integer daysLeft = null;
        String note;
        if (site.subscription() == Subscription.SUBSCRIBED) {
            note = "Subscribed at " + site.subscribedAt().truncatedTo(ChronoUnit.SECONDS) + ": the site stays active.";
        } else if (site.subscription() == Subscription.EXPIRED) {
            note = "The trial ended at " + deadline + " without a subscription: the site was taken down.";
        } else if (site.trialEndsAt() != null) {
            note = "Subscribe before " + deadline + " to keep the site active: the trial lasts "
                    + (config.trialWindow() == null ? "until then" : describe(config.trialWindow()) + " from the request")
                    + ", as configured for this service.";
            if (site.state() == SiteState.PROVISIONING || site.state() == SiteState.ACTIVE) {
                daysLeft = daysLeft(site.trialEndsAt(), now.get());
            }
        } else {
            note = config.trialWindow() == null ? NO_TRIAL_NOTE : NO_DEADLINE_NOTE;
        }
        String account = config.accountUrl() == null ? null
                : config.accountUrl().replace("{site_id}", site.publicId());
        Map<String, String> links = new LinkedHashMap<>();
        links.put("self", "/v1/sites/" + site.publicId());
        links.put("lead", "/v1/leads/" + site.leadPublicId());
        return new Receipt(site.publicId(), site.state().sql(), message(site), expectedUrl(site.subdomain()),
                new Receipt.Details(site.subdomain(), site.template(), site.plan(), site.leadPublicId(),
                        site.createdAt().truncatedTo(ChronoUnit.MILLIS).toString(), resources.planned()),
                account, site.subscription().sql(), deadline, daysLeft, note, nextSteps(site), links);
    }

    /** Whole days to the deadline, rounded up: 1 on its last day, 0 once it passed. */
    static int daysLeft(Instant deadline, Instant now) {
        long ms = java.time.Duration.between(now, deadline).toMillis();
        if (ms <= 0) {
            return 0;
        }
        long day = java.time.Duration.ofDays(1).toMillis();
        return (int) ((ms + day - 1) / day);
    }

    public String expectedUrl(String subdomain) {
        return "https://" + subdomain + "." + config.baseDomain();
    }

    private static String message(Site site) {
        if (site.state() == SiteState.PROVISIONING && site.provisionFlowId() == null) {
            return "Site provisioning is queued: it starts as soon as the service has room, in turn with other "
                    + "requests.";
        }
        return switch (site.state()) {
            case PROVISIONING -> "Site provisioning has started.";
            case ACTIVE -> "The site is live.";
            case FAILED -> "Provisioning failed; everything created for the site was removed.";
            case NEEDS_ATTENTION -> "The site could not be provisioned or cleaned up automatically; an operator must check it.";
            case DELETING -> "The site is being deleted.";
            case DELETED -> "The site was deleted; everything created for it was removed.";
        };
    }

    private static List<String> nextSteps(Site site) {
        String self = "GET /v1/sites/" + site.publicId();
        return switch (site.state()) {
            case PROVISIONING -> List.of("Poll " + self + " until its state is active.",
                    "The lead receives a welcome email when the site is live.");
            case ACTIVE -> site.subscription() == Subscription.TRIAL && site.trialEndsAt() != null
                    ? List.of("Share the site URL with the customer.",
                            "Subscribe before the deadline to keep it: POST /v1/sites/" + site.publicId() + "/subscription.")
                    : List.of("Share the site URL with the customer.");
            case FAILED -> List.of("A person of the tenant (approver token) can retry it: POST /v1/sites/" + site.publicId()
                    + "/retries with a reason provisions it again on the same subdomain.",
                    "DELETE /v1/sites/" + site.publicId() + " frees the subdomain.");
            case NEEDS_ATTENTION -> List.of("Contact support with the site id; do not retry blindly.");
            case DELETING -> List.of("Poll " + self + " until its state is deleted.");
            case DELETED -> List.of("Nothing to do; the subdomain is free again.");
        };
    }

    private static String describe(java.time.Duration d) {
        long days = d.toDays();
        if (days > 0 && d.equals(java.time.Duration.ofDays(days))) {
            return days + (days == 1 ? " day" : " days");
        }
        long hours = d.toHours();
        if (hours > 0 && d.equals(java.time.Duration.ofHours(hours))) {
            return hours + (hours == 1 ? " hour" : " hours");
        }
        return d.toMinutes() + " minutes";
    }
}
