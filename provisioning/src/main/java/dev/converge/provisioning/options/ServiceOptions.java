package dev.converge.provisioning.options;

import dev.converge.provisioning.mail.MailLookup;
import dev.converge.ledger.ResourceTags;
import dev.converge.provisioning.config.ProvisioningConfig;
import dev.converge.provisioning.leaf.ApiToken;
import dev.converge.provisioning.leaf.GitHostConfig;
import dev.converge.provisioning.leaf.HostingConfig;
import dev.converge.provisioning.leaf.HttpLeafConfig;
import dev.converge.provisioning.leaf.LicenseConfig;
import dev.converge.provisioning.leaf.PostgresLeafConfig;
import dev.converge.provisioning.mail.HttpMailLookup;
import dev.converge.provisioning.mail.SmtpConfig;
import java.time.Duration;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The service's settings on the command line, shared by {@code server}, {@code worker},
 * {@code mcp} and {@code reconcile}. Secrets (leaf API tokens, the database password) come only
 * from the environment, never from flags, so they do not show in process listings or shell history.
 */
public final class ServiceOptions {
    @Mixin
    public DatabaseOptions database = new DatabaseOptions();

    @Option(names = "--leafsim-url", defaultValue = "http://127.0.0.1:8089",
            description = "Base URL of the simulated leaf services (converge leafsim): the shortcut that points every "
                    + "leaf not given its own URL at <url>/<leaf>. Default: ${DEFAULT-VALUE}")
    String leafUrl;

    @Option(names = "--githost-url", description = "Base URL of the git host's REST API (e.g. https://api.github.com); "
            + "token from CONVERGE_GITHOST_TOKEN. Default: <leafsim-url>/githost")
    String githostUrl;

    @Option(names = "--hosting-url", description = "Base URL of the hosting API (e.g. https://forge.laravel.com/api/v1); "
            + "token from CONVERGE_HOSTING_TOKEN. Default: <leafsim-url>/hosting")
    String hostingUrl;

    @Option(names = "--license-url", description = "Base URL of the license API; token from CONVERGE_LICENSE_TOKEN. "
            + "Default: <leafsim-url>/license")
    String licenseUrl;

    @Option(names = "--base-domain", defaultValue = "sites.example", description = "Domain sites live under.")
    String baseDomain;

    @Option(names = "--trial-days", description = "Trial window in days (as --trial Nd).")
    Integer trialDays;

    @Option(names = "--trial", converter = DurationConverter.class, description = "How long a new site's trial lasts "
            + "(90s, 2h, 14d): a site not subscribed by then is taken down. None if unset: sites never expire.")
    Duration trial;

    @Option(names = "--trial-reminder", converter = DurationConverter.class, description = "How long before the end "
            + "of a trial its reminder email goes out. Default: a quarter of the trial, at most 3 days.")
    Duration trialReminder;

    @Option(names = "--subdomain-hold", converter = DurationConverter.class, description = "How long a deleted "
            + "site's subdomain stays its tenant's before another tenant may take it (default 30d; 0s for none).")
    Duration subdomainHold;

    @Option(names = "--provisionings-in-flight", defaultValue = "0", description = "Site provisionings the "
            + "service runs at once; more wait their turn, a tenant with fewer in flight first (default 0: follow the "
            + "live workers, 1.25 per handler thread, at most 100; give every node the same).")
    int provisioningsInFlight;

    @Option(names = "--account-url", description = "Account page stated in receipts and trial reminders ({site_id} is "
            + "replaced). Default: the site on this API, <public-url>/v1/sites/{site_id}.")
    String accountUrl;

    @Option(names = "--public-url", description = "Where clients reach this service's API (https://api.example.com), "
            + "for the links it gives out. Default on a server: http://<host>:<port> it listens on; give workers the same, "
            + "so the reminders they send carry the account link.")
    String publicUrl;

    @Option(names = "--git-org", defaultValue = "converge-sites", description = "Git host organisation.")
    String gitOrg;

    @Option(names = "--hosting-server", defaultValue = "srv-1", description = "Hosting server id.")
    String hostingServer;

    @Option(names = "--hosting-org", defaultValue = "converge", description = "The Forge organization's slug (default "
            + "${DEFAULT-VALUE}, the simulator's): the hosting driver speaks Forge's current API "
            + "(/orgs/<org>/servers/<server>/sites), each site isolated under a user named from our tag.")
    String hostingOrg;

    @Option(names = "--hosting-legacy-v1", description = "Speak Forge's legacy v1 API instead (/servers/<server>/sites, "
            + "our tag in the site's tags).")
    boolean hostingLegacyV1;

    @Option(names = "--smtp", defaultValue = "127.0.0.1:2525", description = "SMTP host:port for welcome emails.")
    String smtp;

    @Option(names = "--mail-from", defaultValue = "welcome@sites.example", description = "Sender of welcome emails.")
    String mailFrom;

    @Option(names = "--smtp-server-timeout", defaultValue = "10m", converter = DurationConverter.class,
            description = "How long the SMTP server keeps a connection on which nothing arrives before it drops it and "
                    + "the message left unfinished (Postfix: smtpd_timeout, 300s by default). A welcome email whose "
                    + "sender stopped mid-send is looked up at the mail server only after this, so it can never go out "
                    + "twice. At most 1h. Default: ${DEFAULT-VALUE}.")
    Duration smtpServerTimeout;

    @Option(names = "--site-db", description = "JDBC URL of a PostgreSQL server on which each site gets a database "
            + "(a maintenance database, e.g. jdbc:postgresql://127.0.0.1:5432/postgres); none if unset.")
    String siteDb;

    @Option(names = "--site-db-user", defaultValue = "root", description = "User for --site-db.")
    String siteDbUser;

    @Option(names = "--flow-deadline", defaultValue = "10m", converter = DurationConverter.class,
            description = "A provisioning still running after this is failed by the watchdog (e.g. 90s, 10m).")
    Duration flowDeadline;

    @Option(names = "--leaf-timeout", defaultValue = "10s", converter = DurationConverter.class,
            description = "How long a leaf call may take.")
    Duration leafTimeout;

    @Option(names = "--site-db-prefix", hidden = true, defaultValue = "cvsite_",
            description = "Name prefix of the per-site databases (chaos runs use one per run).")
    String siteDbPrefix;

    @Option(names = "--mail-lookup-url", hidden = true, description = "Base URL of a mail server's listing "
            + "(converge mailsim) to ask whether a welcome email with a send token arrived, after a crash between the "
            + "send and the token spend; without it such a send needs a person.")
    String mailLookupUrl;

    @Option(names = "--installation", defaultValue = "default", description = "This installation's id, carried in "
            + "every resource tag (converge:<installation>:site-N): installations sharing a leaf account never adopt, "
            + "reconcile or delete each other's resources. With CONVERGE_INSTALLATION_SECRET set, the tag carries "
            + "an HMAC-SHA256 of it under that secret instead (no one without the secret can forge it). "
            + "Letters, digits, '.', '_', '-'; at most 64. Default: ${DEFAULT-VALUE}.")
    String installation = "default";

    @Option(names = "--dev", description = "Use the leaf simulator's default tokens (dev-<leaf>-token) for leaves whose "
            + "CONVERGE_<LEAF>_TOKEN is unset. Local demos only: without it a missing token stops the command.")
    boolean dev;

    /** The public URL a server derives from where it listens, unless {@code --public-url} was given. */
    public void defaultPublicUrl(String url) {
        if (publicUrl == null) {
            publicUrl = url;
        }
    }

    /** {@code --account-url}, or the site on this API under {@code --public-url}; null with neither. */
    String accountUrl() {
        if (accountUrl != null || publicUrl == null) {
            return accountUrl;
        }
        java.net.URI uri;
        try {
            uri = new java.net.URI(publicUrl.strip());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException("--public-url is not a URL");
        }
        if (!("https".equals(uri.getScheme()) || "http".equals(uri.getScheme())) || uri.getHost() == null
                || uri.getRawUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("--public-url must be an http(s) URL with a host and no user, query or "
                    + "fragment");
        }
        String base = uri.toString();
        while (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        return base + "/v1/sites/{site_id}";
    }

    /**
     * Builds the configuration; leaf tokens from CONVERGE_{GITHOST,HOSTING,LICENSE}_TOKEN. A missing
     * one is an error (a service must not quietly talk to a leaf with a well-known token) unless
     * {@code --dev} allows the simulator's defaults. The mail lookup is the server behind
     * {@code --mail-lookup-url}, if given.
     */
    public ProvisioningConfig config() {
        java.util.List<String> missing = java.util.stream.Stream.of("githost", "hosting", "license")
                .map(l -> "CONVERGE_" + l.toUpperCase() + "_TOKEN").filter(v -> env(v, null) == null).toList();
        if (!missing.isEmpty() && !dev) {
            throw new IllegalArgumentException("set " + String.join(", ", missing) + " (leaf API tokens come from the "
                    + "environment only), or pass --dev to use the leaf simulator's default tokens");
        }
        String[] hostPort = smtp.split(":", 2);
        if (hostPort.length != 2) {
            throw new IllegalArgumentException("--smtp must be host:port");
        }
        PostgresLeafConfig db = siteDb == null ? null : new PostgresLeafConfig(siteDb, siteDbUser,
                env("CONVERGE_SITE_DB_PASSWORD", null) == null ? null : ApiToken.of(env("CONVERGE_SITE_DB_PASSWORD", null)),
                siteDbPrefix, null, null);
        MailLookup mailLookup = mailLookupUrl == null ? null : new HttpMailLookup(mailLookupUrl);
        if (trialDays != null && trial != null) {
            throw new IllegalArgumentException("give either --trial or --trial-days, not both");
        }
        if (trialDays != null && trialDays <= 0) {
            throw new IllegalArgumentException("--trial-days must be positive, was " + trialDays);
        }
        Duration window = trial != null ? trial : trialDays == null ? null : Duration.ofDays(trialDays);
        if (trialReminder != null && window == null) {
            throw new IllegalArgumentException("--trial-reminder needs a trial (--trial)");
        }
        if (trialReminder != null && trialReminder.compareTo(window) >= 0) {
            throw new IllegalArgumentException("--trial-reminder (" + trialReminder + ") must be shorter than the trial ("
                    + window + ")");
        }
        return new ProvisioningConfig(baseDomain, window, trialReminder, accountUrl(),
                flowDeadline, Duration.ofHours(24),
                new GitHostConfig(http("githost"), gitOrg, true),
                hostingLegacyV1 ? HostingConfig.of(http("hosting"), hostingServer)
                        : HostingConfig.current(http("hosting"), hostingOrg, hostingServer),
                new LicenseConfig(http("license")),
                db,
                SmtpConfig.of(hostPort[0], Integer.parseInt(hostPort[1]), mailFrom).withServerTimeout(smtpServerTimeout),
                mailLookup, tags(), subdomainHold, provisioningsInFlight);
    }

    /** The tags of {@code --installation}, keyed by CONVERGE_INSTALLATION_SECRET when it is set. */
    public ResourceTags tags() {
        return installationTags(installation, env("CONVERGE_INSTALLATION_SECRET", null));
    }

    /**
     * {@code installation} itself, or with a secret the first 32 hex digits of
     * HMAC-SHA256(secret, installation): a tag no one can make without the secret. The secret is
     * never logged nor part of any message.
     */
    public static ResourceTags installationTags(String installation, String secret) {
        if (installation == null || !installation.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new IllegalArgumentException("--installation must be 1 to 64 letters, digits, '.', '_' or '-'");
        }
        if (secret == null) {
            return ResourceTags.of(installation);
        }
        if (secret.length() < 16) {
            throw new IllegalArgumentException("CONVERGE_INSTALLATION_SECRET must be at least 16 characters");
        }
        try {
            javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
            mac.init(new javax.crypto.spec.SecretKeySpec(secret.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    "HmacSHA256"));
            byte[] h = mac.doFinal(installation.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return ResourceTags.of(java.util.HexFormat.of().formatHex(h, 0, 16));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is unavailable", e);
        }
    }

    private HttpLeafConfig http(String leaf) {
        String token = env("CONVERGE_" + leaf.toUpperCase() + "_TOKEN", "dev-" + leaf + "-token");
        return HttpLeafConfig.of(leafUrl(leaf), ApiToken.of(token)).withTimeouts(Duration.ofSeconds(2), leafTimeout);
    }

    /** The leaf's own URL if given, else its path under {@code --leafsim-url}. */
    String leafUrl(String leaf) {
        String own = switch (leaf) {
            case "githost" -> githostUrl;
            case "hosting" -> hostingUrl;
            case "license" -> licenseUrl;
            default -> throw new IllegalArgumentException("no such leaf: " + leaf);
        };
        if (own != null && !own.isBlank()) {
            return own;
        }
        String base = leafUrl.endsWith("/") ? leafUrl.substring(0, leafUrl.length() - 1) : leafUrl;
        return base + "/" + leaf;
    }

    public static String env(String name, String fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : v;
    }
}
