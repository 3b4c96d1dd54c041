package dev.converge.store.internal;

/** Picks the {@link Dialect} of a JDBC URL, and writes a URL safe to log. */
public final class Dialects {
    private Dialects() {
    }

    /** The dialect of a {@code jdbc:postgresql:} or {@code jdbc:h2:} URL; any other is refused. */
    public static Dialect forUrl(String jdbcUrl) {
        return forUrl(jdbcUrl, null);
    }

    /** The dialect of a URL with the engine's tables in {@code schema} (null: the connection's own). */
    public static Dialect forUrl(String jdbcUrl, String schema) {
        if (jdbcUrl.startsWith("jdbc:postgresql:")) {
            return new PostgresDialect(schema);
        }
        if (jdbcUrl.startsWith("jdbc:h2:")) {
            return new H2Dialect(schema);
        }
        throw new IllegalArgumentException(
                "unsupported database URL (expected jdbc:postgresql: or jdbc:h2:): " + redactUrl(jdbcUrl));
    }

    /** A JDBC URL without any password, as a parameter or in its user-info ({@code user:password@}), safe to log. */
    public static String redactUrl(String url) {
        return url == null ? null : url.replaceAll("(?i)(password=)[^&;]*", "$1***")
                .replaceFirst("^(jdbc:[A-Za-z0-9]+://[^/?#:@]*):[^/?#@]*@", "$1:***@");
    }
}
