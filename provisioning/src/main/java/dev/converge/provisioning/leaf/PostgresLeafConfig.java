package dev.converge.provisioning.leaf;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How the PostgreSQL leaf reaches its server and which databases are ours to list.
 *
 * @param jdbcUrl    a maintenance database on the server, e.g. {@code jdbc:postgresql://127.0.0.1:5432/postgres};
 *                   put no password in it (use {@code password})
 * @param password   null for trust authentication
 * @param namePrefix every database we create starts with it, so {@code list()} finds exactly ours
 */
public record PostgresLeafConfig(String jdbcUrl, String user, ApiToken password, String namePrefix,
        Duration connectTimeout, Duration socketTimeout) {
    static final Pattern PREFIX = Pattern.compile("[a-z_][a-z0-9_]{0,31}");

    public PostgresLeafConfig {
        if (jdbcUrl == null || !jdbcUrl.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("jdbcUrl must be a jdbc:postgresql: URL");
        }
        if (jdbcUrl.toLowerCase(java.util.Locale.ROOT).contains("password=")) {
            throw new IllegalArgumentException("put the password in the password field, not in the JDBC URL");
        }
        Objects.requireNonNull(user, "user");
        if (namePrefix == null || !PREFIX.matcher(namePrefix).matches()) {
            throw new IllegalArgumentException("namePrefix must match " + PREFIX + ": " + namePrefix);
        }
        connectTimeout = requireSeconds(connectTimeout == null ? Duration.ofSeconds(5) : connectTimeout, "connectTimeout");
        socketTimeout = requireSeconds(socketTimeout == null ? Duration.ofSeconds(60) : socketTimeout, "socketTimeout");
    }

    public static PostgresLeafConfig of(String jdbcUrl, String user, String namePrefix) {
        return new PostgresLeafConfig(jdbcUrl, user, null, namePrefix, null, null);
    }

    private static Duration requireSeconds(Duration d, String name) {
        if (d.toSeconds() < 1 || d.toSeconds() > 3600) {
            throw new IllegalArgumentException(name + " must be within 1 s..1 h (whole seconds): " + d);
        }
        return d;
    }
}
