package dev.converge.leafsim;

import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Checks {@code Authorization: Bearer <token>} like the real services do, so a driver that
 * forgets or mangles its token fails in tests instead of in production. Compares in constant time.
 */
final class BearerAuth {
    private final byte[] expected;

    /** @param token null: no token required */
    BearerAuth(String token) {
        this.expected = token == null ? null : token.getBytes(StandardCharsets.UTF_8);
    }

    boolean permits(Context ctx) {
        if (expected == null) {
            return true;
        }
        String header = ctx.header("Authorization");
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return false;
        }
        byte[] given = header.substring(7).trim().getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(expected, given);
    }

    @Override
    public String toString() {
        return "BearerAuth[<redacted>]";
    }
}
