package dev.converge.provisioning.api;

import dev.converge.provisioning.tenant.Tenant;
import java.util.Optional;

/** Resolves an {@code Authorization} header ({@code Bearer <token>}) to its tenant; empty when missing or invalid. */
@FunctionalInterface
public interface Authenticator {
    Optional<Tenant> authenticate(String authorizationHeader);
}
