package dev.converge.provisioning.leaf;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The hosting driver's settings: the HTTP leaf, the server that holds our sites, how sites are set
 * up, and which of Forge's APIs to speak: the current one ({@code /orgs/{org}/servers/{server}/sites},
 * JSON:API bodies) when {@code org} is set, the legacy v1 ({@code /servers/{server}/sites}) when it
 * is null.
 *
 * @param org the organization's slug in the current API, or null for the legacy v1 API
 */
public record HostingConfig(HttpLeafConfig http, String serverId, String projectType, String directory, String org) {
    private static final Pattern SERVER_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final Pattern ORG = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,99}");

    public HostingConfig {
        Objects.requireNonNull(http, "http");
        if (serverId == null || !SERVER_ID.matcher(serverId).matches()) {
            throw new IllegalArgumentException("serverId must match " + SERVER_ID + ": " + serverId);
        }
        if (org != null && !ORG.matcher(org).matches()) {
            throw new IllegalArgumentException("the hosting organization is a slug of letters, digits, '-' and '_': " + org);
        }
        projectType = projectType == null ? "php" : projectType;
        directory = directory == null ? "/public" : directory;
    }

    /** The legacy v1 API on this server. */
    public static HostingConfig of(HttpLeafConfig http, String serverId) {
        return new HostingConfig(http, serverId, null, null, null);
    }

    /** The current API, this organization's server. */
    public static HostingConfig current(HttpLeafConfig http, String org, String serverId) {
        return new HostingConfig(http, serverId, null, null, Objects.requireNonNull(org, "org"));
    }

    /** Whether the driver speaks the current API (an organization is set). */
    public boolean currentApi() {
        return org != null;
    }
}
