package dev.converge.provisioning.leaf;

import java.util.Objects;

/** The license driver's settings: just the HTTP leaf (licenses are global to the account). */
public record LicenseConfig(HttpLeafConfig http) {
    public LicenseConfig {
        Objects.requireNonNull(http, "http");
    }
}
