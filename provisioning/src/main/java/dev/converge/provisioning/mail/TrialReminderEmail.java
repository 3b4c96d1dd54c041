package dev.converge.provisioning.mail;

import java.util.Objects;

/**
 * The reminder that a site's trial is about to end, sent once per site.
 *
 * @param deadline   when the trial ends (ISO-8601), as the receipt states it
 * @param accountUrl where to subscribe, or null when the service names no account page
 * @param sendToken  the single-use token that permitted this send ({@code X-Converge-Send-Token})
 */
public record TrialReminderEmail(String to, String siteId, String siteName, String siteUrl, String deadline,
        String accountUrl, String sendToken) {
    public TrialReminderEmail {
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(siteName, "siteName");
        Objects.requireNonNull(siteUrl, "siteUrl");
        Objects.requireNonNull(deadline, "deadline");
        WelcomeEmail.requireHeaderSafe(siteId, "siteId");
        WelcomeEmail.requireHeaderSafe(sendToken, "sendToken");
    }
}
