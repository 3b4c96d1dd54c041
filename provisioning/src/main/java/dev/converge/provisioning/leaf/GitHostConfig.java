package dev.converge.provisioning.leaf;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The git host driver's settings: the HTTP leaf and the org whose repositories we create.
 *
 * @param privateRepos whether new repositories are private
 */
public record GitHostConfig(HttpLeafConfig http, String org, boolean privateRepos) {
    static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9._-]{1,100}");

    public GitHostConfig {
        Objects.requireNonNull(http, "http");
        if (org == null || !SEGMENT.matcher(org).matches()) {
            throw new IllegalArgumentException("org must match " + SEGMENT + ": " + org);
        }
    }
}
