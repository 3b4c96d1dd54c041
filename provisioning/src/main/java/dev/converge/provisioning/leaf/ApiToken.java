package dev.converge.provisioning.leaf;

import java.util.Objects;

/**
 * A credential for a leaf service. Its {@link #toString()} is redacted and it has no public
 * accessor: the value leaves this object only where a driver puts it on the wire, so it cannot
 * end up in a log line, an exception message or a config's toString by accident.
 */
public final class ApiToken {
    private final String value;

    private ApiToken(String value) {
        this.value = value;
    }

    public static ApiToken of(String value) {
        Objects.requireNonNull(value, "token");
        if (value.isBlank() || value.chars().anyMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
            throw new IllegalArgumentException("a token must be non-blank, without whitespace or control characters");
        }
        return new ApiToken(value);
    }

    /** The secret, for the one place that sends it. */
    String reveal() {
        return value;
    }

    @Override
    public String toString() {
        return "ApiToken[<redacted>]";
    }
}
