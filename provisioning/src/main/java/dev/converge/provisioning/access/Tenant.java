package dev.converge.provisioning.access;

import java.time.Instant;

/** A customer of the service: every lookup is scoped by it. */
public record Tenant(long id, String name, Instant createdAt) {
}
