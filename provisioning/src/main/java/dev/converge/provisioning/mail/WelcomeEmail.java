package dev.converge.provisioning.mail;

import java.util.Objects;

/**
 * A welcome email for a provisioned site.
 *
 * @param siteId    sent as {@code X-Converge-Site}, so a checker can count welcome mails per site
 * @param sendToken the single-use token that permitted this send, sent as {@code X-Converge-Send-Token}
 *                  and in the Message-ID
 */
public record WelcomeEmail(String to, String siteId, String siteName, String siteUrl, String sendToken) {
    public WelcomeEmail {
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(siteName, "siteName");
        Objects.requireNonNull(siteUrl, "siteUrl");
        requireHeaderSafe(siteId, "siteId");
        requireHeaderSafe(sendToken, "sendToken");
    }

    /** Values that go into headers and the Message-ID: no spaces, brackets, '@' or control characters. */
    static void requireHeaderSafe(String value, String name) {
        if (value == null || !value.matches("[A-Za-z0-9._:-]{1,128}")) {
            throw new IllegalArgumentException(name + " must be 1..128 of [A-Za-z0-9._:-]: " + value);
        }
    }
}
