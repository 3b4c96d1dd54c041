package dev.converge.provisioning.tenant;

import dev.converge.store.Params;
import dev.converge.store.Sql;
import dev.converge.store.Store;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Tenants and their bearer tokens. A token is 32 random bytes, shown once when the tenant is
 * created; only its SHA-256 is stored (the token's entropy makes a slow hash unnecessary), so
 * a copy of the database does not let anyone act as a tenant.
 */
public final class Tenants {
    /** A new tenant and its token, which is not stored anywhere and cannot be shown again. */
    public record Created(Tenant tenant, String token) {
        @Override
        public String toString() {
            return "Created[tenant=" + tenant + ", token=***]";
        }
    }

    private static final SecureRandom RANDOM = new SecureRandom();
    private final Store store;
    private final Sql insert;
    private final Sql byHash;
    private final Sql byId;

    public Tenants(Store store) {
        this.store = store;
        insert = Sql.of(store.dialect(), "INSERT INTO pv_tenant (name, token_hash, created_at) VALUES (:name, :hash, {now})");
        byHash = Sql.of(store.dialect(), "SELECT id, name, created_at FROM pv_tenant WHERE token_hash = :hash");
        byId = Sql.of(store.dialect(), "SELECT id, name, created_at FROM pv_tenant WHERE id = :id");
    }

    public Created create(String name) {
        if (name == null || name.isBlank() || name.length() > 200) {
            throw new IllegalArgumentException("tenant name must be 1-200 characters");
        }
        byte[] raw = new byte[32];
        RANDOM.nextBytes(raw);
        String token = "cvt_" + Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
        long id = store.withConnection(c -> {
            try (PreparedStatement ps = insert.prepareReturning(c, Params.of().now(store.clock().sqlNow())
                    .text("name", name.strip()).text("hash", hash(token)), "id")) {
                ps.executeUpdate();
                try (ResultSet rs = ps.getGeneratedKeys()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
        return new Created(get(id).orElseThrow(), token);
    }

    /** The tenant a bearer token belongs to, if any. */
    public Optional<Tenant> authenticate(String token) {
        if (token == null || token.isBlank() || token.length() > 200) {
            return Optional.empty();
        }
        return Optional.ofNullable(store.withConnection(c -> byHash.queryOne(c, Params.of().text("hash", hash(token)),
                Tenants::row)));
    }

    public Optional<Tenant> get(long id) {
        return Optional.ofNullable(store.withConnection(c -> byId.queryOne(c, Params.of().bigint("id", id), Tenants::row)));
    }

    private static Tenant row(ResultSet rs) throws java.sql.SQLException {
        return new Tenant(rs.getLong("id"), rs.getString("name"), Sql.instant(rs, "created_at"));
    }

    /** SHA-256 of a secret, hex. */
    public static String hash(String secret) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(secret.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
