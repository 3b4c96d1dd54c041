package dev.converge.provisioning.site;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * The result of an irreversible request, as its user's receipt (R15): what was created, where it
 * will be, what to do next, and by when. The deadline comes from the service's configuration;
 * where none is configured it is null and the note says so, never a duration of our own.
 * {@code subscription} is trial, subscribed or expired; {@code trial_days_left} counts whole days
 * to the deadline, rounded up (1 on its last day, 0 once it passed), null outside a running trial.
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record Receipt(
        @JsonProperty("site_id") String siteId,
        @JsonProperty("status") String status,
        @JsonProperty("message") String message,
        @JsonProperty("expected_url") String expectedUrl,
        @JsonProperty("site_details") Details siteDetails,
        @JsonProperty("account_url") String accountUrl,
        @JsonProperty("subscription") String subscription,
        @JsonProperty("subscription_deadline") String subscriptionDeadline,
        @JsonProperty("trial_days_left") Integer trialDaysLeft,
        @JsonProperty("subscription_deadline_note") String subscriptionDeadlineNote,
        @JsonProperty("next_steps") List<String> nextSteps,
        @JsonProperty("links") Map<String, String> links) {

    /** What was asked for. */
    public record Details(
            @JsonProperty("subdomain") String subdomain,
            @JsonProperty("template") String template,
            @JsonProperty("plan") String plan,
            @JsonProperty("lead_id") String leadId,
            @JsonProperty("requested_at") String requestedAt,
            @JsonProperty("resources") List<String> resources) {
    }
}
