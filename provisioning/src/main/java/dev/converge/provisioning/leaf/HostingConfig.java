package dev.converge.provisioning.leaf;

import java.util.Objects;
import java.util.regex.Pattern;

/** The hosting driver's settings: the HTTP leaf, the server that holds our sites, and how sites are set up. */
public record HostingConfig(HttpLeafConfig http, String serverId, String projectType, String directory) {
    private static final Pattern SERVER_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    public HostingConfig {
        Objects.requireNonNull(http, "http");
        if (serverId == null || !SERVER_ID.matcher(serverId).matches()) {
            throw new IllegalArgumentException("serverId must match " + SERVER_ID + ": " + serverId);
        }
        projectType = projectType == null ? "php" : projectType;
        directory = directory == null ? "/public" : directory;
    }

    public static HostingConfig of(HttpLeafConfig http, String serverId) {
        return new HostingConfig(http, serverId, null, null);
    }
}
