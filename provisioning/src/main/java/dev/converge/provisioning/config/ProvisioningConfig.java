package dev.converge.provisioning.config;

import dev.converge.ledger.ResourceTags;
import dev.converge.provisioning.leaf.GitHostConfig;
import dev.converge.provisioning.leaf.HostingConfig;
import dev.converge.provisioning.leaf.ApiToken;
import dev.converge.provisioning.leaf.HttpLeafConfig;
import dev.converge.provisioning.mail.LocalSmtp;
import dev.converge.provisioning.leaf.LicenseConfig;
import dev.converge.provisioning.leaf.PostgresLeafConfig;
import dev.converge.provisioning.mail.MailLookup;
import dev.converge.provisioning.mail.SmtpConfig;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * How the provisioning service is set up: where its leaves are, and the business facts its
 * receipts state (base domain, trial window, account URL). Validated when built; facts that are
 * not configured are reported as such in receipts, never invented.
 *
 * @param trialWindow       how long a new site's trial lasts; null if none is configured (sites never expire)
 * @param trialReminder     how long before the trial's end its reminder email goes out; null for the default,
 *                          a quarter of the window and at most {@link #DEFAULT_REMINDER}
 * @param accountUrl        where the customer manages their account; {@code {site_id}} is replaced; null if none
 * @param flowDeadline      a provisioning that has not ended by then is failed by the watchdog
 * @param idempotencyTtl    how long an {@code Idempotency-Key} is remembered
 * @param database          the per-site PostgreSQL leaf, or null to provision no database
 * @param mailLookup        how to ask the mail provider whether a welcome email went out; null if it cannot be asked
 * @param tags              how this installation tags its resources at the leaves
 *                          ({@code converge:<installation>:<site-N>}); null for the default installation
 * @param subdomainHold     how long a deleted site's subdomain stays its tenant's before another tenant may
 *                          take it; null for {@link #DEFAULT_SUBDOMAIN_HOLD}, zero for no hold
 * @param provisioningsInFlight site provisionings run at once; a request beyond waits its turn, a tenant
 *                          with fewer in flight first; 0 (the default) to follow the live workers: 1.25 per
 *                          handler thread, at most {@link #DEFAULT_PROVISIONINGS_IN_FLIGHT}
 */
public record ProvisioningConfig(
        String baseDomain,
        Duration trialWindow,
        Duration trialReminder,
        String accountUrl,
        Duration flowDeadline,
        Duration idempotencyTtl,
        GitHostConfig gitHost,
        HostingConfig hosting,
        LicenseConfig license,
        PostgresLeafConfig database,
        SmtpConfig smtp,
        MailLookup mailLookup,
        ResourceTags tags,
        Duration subdomainHold,
        int provisioningsInFlight) {

    /** The most provisionings run at once unless configured, however many handler threads the workers have. */
    public static final int DEFAULT_PROVISIONINGS_IN_FLIGHT = 100;

    /** A released subdomain is its tenant's for 30 days. */
    public static final Duration DEFAULT_SUBDOMAIN_HOLD = Duration.ofDays(30);

    /** The longest default reminder lead: three days before the end of the trial. */
    public static final Duration DEFAULT_REMINDER = Duration.ofDays(3);

    private static final Pattern DOMAIN = Pattern.compile("([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,63}");

    public ProvisioningConfig {
        if (baseDomain == null || !DOMAIN.matcher(baseDomain).matches()) {
            throw new IllegalArgumentException("baseDomain must be a lower-case DNS name: " + baseDomain);
        }
        if (trialWindow != null && (trialWindow.isNegative() || trialWindow.isZero())) {
            throw new IllegalArgumentException("trialWindow must be positive when set");
        }
        if (trialWindow == null) {
            trialReminder = null;
        } else if (trialReminder == null) {
            Duration quarter = trialWindow.dividedBy(4);
            trialReminder = quarter.compareTo(DEFAULT_REMINDER) < 0 ? quarter : DEFAULT_REMINDER;
        } else if (trialReminder.isNegative() || trialReminder.isZero() || trialReminder.compareTo(trialWindow) >= 0) {
            throw new IllegalArgumentException("trialReminder must be positive and shorter than the trial window ("
                    + trialWindow + "), was " + trialReminder);
        }
        if (accountUrl != null && !accountUrl.startsWith("https://") && !accountUrl.startsWith("http://")) {
            throw new IllegalArgumentException("accountUrl must be an http(s) URL");
        }
        Objects.requireNonNull(flowDeadline, "flowDeadline");
        Objects.requireNonNull(idempotencyTtl, "idempotencyTtl");
        Objects.requireNonNull(gitHost, "gitHost");
        Objects.requireNonNull(hosting, "hosting");
        Objects.requireNonNull(license, "license");
        Objects.requireNonNull(smtp, "smtp");
        tags = tags == null ? ResourceTags.defaults() : tags;
        subdomainHold = subdomainHold == null ? DEFAULT_SUBDOMAIN_HOLD : subdomainHold;
        if (subdomainHold.isNegative() || subdomainHold.compareTo(Duration.ofDays(3650)) > 0) {
            throw new IllegalArgumentException("--subdomain-hold must be between 0 and 3650 days, was " + subdomainHold);
        }
        if (provisioningsInFlight < 0 || provisioningsInFlight > 100_000) {
            throw new IllegalArgumentException("--provisionings-in-flight must be between 0 (follow the workers) and "
                    + "100000, was "
                    + provisioningsInFlight);
        }
    }

    /**
     * A configuration for a local installation (the demo's, the tests'): base domain
     * {@code sites.example}, git organisation {@code converge-sites}, hosting server
     * {@code converge/srv-1}, idempotency keys kept a day, mail through {@code smtp} from
     * {@code welcome@sites.example}, the other facts at their defaults.
     *
     * @param leafUrl     a leaf's base URL by its name ({@code githost}, {@code hosting}, {@code license})
     * @param leafToken   a leaf's API token by its name
     * @param callTimeout how long a driver waits for a leaf's answer
     * @param database    the PostgreSQL leaf for per-site databases, or null for none
     */
    public static ProvisioningConfig local(UnaryOperator<String> leafUrl, UnaryOperator<String> leafToken,
            Duration callTimeout, LocalSmtp smtp, Duration trialWindow, Duration flowDeadline, PostgresLeafConfig database) {
        Function<String, HttpLeafConfig> http = leaf -> HttpLeafConfig.of(leafUrl.apply(leaf), ApiToken.of(leafToken.apply(leaf)))
                .withTimeouts(Duration.ofSeconds(2), callTimeout);
        return new ProvisioningConfig("sites.example", trialWindow, null, "https://account.sites.example/sites/{site_id}",
                flowDeadline, Duration.ofHours(24),
                new GitHostConfig(http.apply("githost"), "converge-sites", true),
                HostingConfig.current(http.apply("hosting"), "converge", "srv-1"),
                new LicenseConfig(http.apply("license")),
                database, smtp.config("welcome@sites.example"),
                token -> smtp.received().stream().anyMatch(m -> token.equals(m.sendToken())), null, null, 0);
    }

    /** This configuration for another installation. */
    public ProvisioningConfig withTags(ResourceTags t) {
        return new ProvisioningConfig(baseDomain, trialWindow, trialReminder, accountUrl, flowDeadline, idempotencyTtl, gitHost, hosting,
                license, database, smtp, mailLookup, t, subdomainHold, provisioningsInFlight);
    }

    /** This configuration with another hold on released subdomains. */
    public ProvisioningConfig withSubdomainHold(Duration hold) {
        return new ProvisioningConfig(baseDomain, trialWindow, trialReminder, accountUrl, flowDeadline, idempotencyTtl, gitHost, hosting,
                license, database, smtp, mailLookup, tags, hold, provisioningsInFlight);
    }

    /** This configuration running {@code n} provisionings at once (0: as many as the workers can run). */
    public ProvisioningConfig withProvisioningsInFlight(int n) {
        return new ProvisioningConfig(baseDomain, trialWindow, trialReminder, accountUrl, flowDeadline, idempotencyTtl, gitHost, hosting,
                license, database, smtp, mailLookup, tags, subdomainHold, n);
    }
}
