package dev.converge.provisioning.api;

import dev.converge.provisioning.access.Credential;
import java.util.Optional;

/**
 * Resolves an {@code Authorization} header ({@code Bearer <token>}) to its credential; empty when
 * missing or invalid. Whether the credential's scope may do something is {@link Authz}'s question.
 */
@FunctionalInterface
public interface Authenticator {
    Optional<Credential> authenticate(String authorizationHeader);
}
