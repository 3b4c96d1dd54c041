package dev.converge.provisioning.idempotency;

import java.util.Optional;

/**
 * The value of an {@code Idempotency-Key} request header (draft-ietf-httpapi-idempotency-key-header).
 * The draft makes it a Structured Field string ({@code "8e03978e-..."}); the bare token most clients
 * send is accepted too. 1-255 visible ASCII characters, so a key is safe to store and to log.
 */
public record IdempotencyKey(String value) {
    public static final String HEADER = "Idempotency-Key";
    private static final int MAX_LENGTH = 255;

    public IdempotencyKey {
        if (value == null || value.isEmpty() || value.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("must be 1-" + MAX_LENGTH + " characters");
        }
        for (int i = 0; i < value.length(); i++) {
            char ch = value.charAt(i);
            if (ch < 0x21 || ch > 0x7e || ch == '"' || ch == '\\') {
                throw new IllegalArgumentException("must be visible ASCII characters without quotes or backslashes");
            }
        }
    }

    /** The key a header carries; empty when the header is absent. Throws IllegalArgumentException when it is invalid. */
    public static Optional<IdempotencyKey> parse(String header) {
        if (header == null) {
            return Optional.empty();
        }
        String v = header.strip();
        if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
            v = v.substring(1, v.length() - 1);
        }
        return Optional.of(new IdempotencyKey(v));
    }

    @Override
    public String toString() {
        return value;
    }
}
