package dev.converge.provisioning.options;

import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * Which database a command uses: PostgreSQL ({@code jdbc:postgresql:...}) for many processes, or
 * H2 in a file (the default, one process). The password comes from CONVERGE_DB_PASSWORD only.
 */
public final class DatabaseOptions {
    @Option(names = "--db", defaultValue = "${env:CONVERGE_DB:-jdbc:h2:file:./data/converge}",
            description = "JDBC URL of the store (default: ${DEFAULT-VALUE}).")
    public String url;

    @Option(names = "--db-user", defaultValue = "${env:CONVERGE_DB_USER:-root}", description = "Database user for PostgreSQL.")
    public String user;

    @Option(names = "--db-pool", defaultValue = "20", description = "Connection pool size.")
    public int pool;

    /** A user-info part ({@code user@} or {@code user:password@}) in the URL's authority. */
    private static final java.util.regex.Pattern USER_INFO = java.util.regex.Pattern.compile("^jdbc:[a-z0-9]+://[^/?#]*@");

    public Store open() {
        if (url.toLowerCase(java.util.Locale.ROOT).contains("password=")) {
            // a password in a flag shows in process listings and shell history
            throw new IllegalArgumentException("--db must not carry a password: put it in CONVERGE_DB_PASSWORD");
        }
        if (USER_INFO.matcher(url).find()) {
            // user:password@host would also reach the driver's errors ("unknown host root:pw@..."); never repeat it
            throw new IllegalArgumentException("--db must not carry a user or password before the host (user@ or "
                    + "user:password@): give the user in --db-user and the password in CONVERGE_DB_PASSWORD");
        }
        if (url.startsWith("jdbc:h2:file:")) {
            String path = url.substring("jdbc:h2:file:".length()).split(";", 2)[0];
            Path parent = Path.of(path).toAbsolutePath().getParent();
            try {
                Files.createDirectories(parent);
            } catch (java.io.IOException e) {
                throw new IllegalStateException("cannot create " + parent + ": " + e.getMessage(), e);
            }
        }
        StoreConfig.Builder b = StoreConfig.newBuilder().url(url).maxPoolSize(pool);
        if (url.startsWith("jdbc:postgresql:")) {
            b.username(user);
            String password = ServiceOptions.env("CONVERGE_DB_PASSWORD", null);
            if (password != null) {
                b.password(password);
            }
        }
        return Store.open(b.build());
    }
}
