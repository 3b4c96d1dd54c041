package dev.converge.provisioning.site;

import dev.converge.provisioning.config.ProvisioningConfig;
import dev.converge.provisioning.flow.SiteResources;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Writes a site's receipt from what is stored and what is configured: deterministic, never invented. */
public final class Receipts {
    static final String NO_TRIAL_NOTE = "No trial window is configured for this service: use the window stated in "
            + "your instructions, and never state a duration of your own.";

    private final ProvisioningConfig config;
    private final SiteResources resources;

    public Receipts(ProvisioningConfig config, SiteResources resources) {
        this.config = config;
        this.resources = resources;
    }

    public Receipt of(Site site) {
        String deadline = null;
        String note = NO_TRIAL_NOTE;
        if (config.trialWindow() != null) {
            Instant end = site.createdAt().plus(config.trialWindow()).truncatedTo(ChronoUnit.SECONDS);
            deadline = end.toString();
            note = "Subscribe before " + deadline + " to keep the site active: the trial lasts "
                    + describe(config.trialWindow()) + " from the request, as configured for this service.";
        }
        String account = config.accountUrl() == null ? null
                : config.accountUrl().replace("{site_id}", Long.toString(site.id()));
        Map<String, String> links = new LinkedHashMap<>();
        links.put("self", "/v1/sites/" + site.id());
        links.put("lead", "/v1/leads/" + site.leadId());
        return new Receipt(site.id(), site.state().sql(), message(site.state()), expectedUrl(site.subdomain()),
                new Receipt.Details(site.subdomain(), site.template(), site.plan(), site.leadId(),
                        site.createdAt().truncatedTo(ChronoUnit.MILLIS).toString(), resources.planned()),
                account, deadline, note, nextSteps(site), links);
    }

    public String expectedUrl(String subdomain) {
        return "https://" + subdomain + "." + config.baseDomain();
    }

    private static String message(SiteState state) {
        return switch (state) {
            case PROVISIONING -> "Site provisioning has started.";
            case ACTIVE -> "The site is live.";
            case FAILED -> "Provisioning failed; everything created for the site was removed.";
            case NEEDS_ATTENTION -> "The site could not be provisioned or cleaned up automatically; an operator must check it.";
            case DELETING -> "The site is being deleted.";
            case DELETED -> "The site was deleted; everything created for it was removed.";
        };
    }

    private static List<String> nextSteps(Site site) {
        String self = "GET /v1/sites/" + site.id();
        return switch (site.state()) {
            case PROVISIONING -> List.of("Poll " + self + " until its state is active.",
                    "The lead receives a welcome email when the site is live.");
            case ACTIVE -> List.of("Share the site URL with the customer.", "Subscribe before the deadline to keep it.");
            case FAILED -> List.of("Request the site again (a new Idempotency-Key); the subdomain is free to reuse once deleted.",
                    "DELETE /v1/sites/" + site.id() + " frees the subdomain.");
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
