package dev.converge.proof.check;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * What the convergence check found. {@code violations} has the same keys in the demo's and the
 * chaos run's reports; each count comes with up to a few examples in {@code details}.
 */
public record CheckReport(
        @JsonProperty("violations") Map<String, Integer> violations,
        @JsonProperty("details") Map<String, List<String>> details,
        @JsonProperty("sites_by_state") Map<String, Integer> sitesByState,
        @JsonProperty("leaves") Map<String, LeafTally> leaves,
        @JsonProperty("welcome_emails") long welcomeEmails,
        @JsonProperty("trials") Trials trials) {

    /**
     * The sites' trials: how many were subscribed, expired (taken down at their deadline), how many
     * reminder emails the mail server received, and how many expired sites got none (a site still
     * provisioning when its trial ended is reminded only once live, so it may get none).
     */
    public record Trials(@JsonProperty("subscribed") long subscribed, @JsonProperty("expired") long expired,
            @JsonProperty("reminders") long reminders,
            @JsonProperty("expired_without_reminder") long expiredWithoutReminder) {
    }

    public static final List<String> KEYS = List.of("lost", "duplicated", "orphans", "stuck", "unconfirmed",
            "token_leaks", "status_mismatches");

    /**
     * One leaf: what it holds now of ours (carrying our tag), every create of ours it accepted, what
     * our ledger records as held there, and what it holds of others (same leaf, not ours).
     */
    public record LeafTally(@JsonProperty("held") long held, @JsonProperty("creates") long creates,
            @JsonProperty("ledger_confirmed") long ledgerConfirmed, @JsonProperty("others") long others) {
    }

    public int total() {
        return violations.values().stream().mapToInt(Integer::intValue).sum();
    }

    public boolean clean() {
        return total() == 0;
    }
}
