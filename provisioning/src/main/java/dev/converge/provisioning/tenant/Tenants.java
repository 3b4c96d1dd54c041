package dev.converge.provisioning.tenant;

import dev.converge.provisioning.access.Credentials;
import dev.converge.provisioning.access.Scope;
import dev.converge.provisioning.access.Tenant;
import dev.converge.store.Store;
import dev.converge.store.Params;
import dev.converge.store.Sql;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Optional;

/**
 * Tenants. Creating one issues its first token, of scope {@code service} (see {@link Credentials}:
 * 32 random bytes shown once; only the SHA-256 is stored, the token's entropy making a slow hash
 * unnecessary, so a copy of the database does not let anyone act as a tenant).
 */
public final class Tenants {
    /** A new tenant and its service token, which is not stored anywhere and cannot be shown again. */
    public record Created(Tenant tenant, String token) {
        @Override
        public String toString() {
            return "Created[tenant=" + tenant + ", token=***]";
        }
    }

    private final Store store;
    private final Credentials credentials;
    private final Sql insert;
    private final Sql byId;

    public Tenants(Store store) {
        this.store = store;
        this.credentials = new Credentials(store);
        insert = Sql.of(store, "INSERT INTO pv_tenant (name, created_at) VALUES (:name, {now})");
        byId = Sql.of(store, "SELECT id, name, created_at FROM pv_tenant WHERE id = :id");
    }

    public Created create(String name) {
        if (name == null || name.isBlank() || name.length() > 200) {
            throw new IllegalArgumentException("tenant name must be 1-200 characters");
        }
        long id = store.withConnection(c -> {
            try (PreparedStatement ps = insert.prepareReturning(c, Params.of().now(store.clock().sqlNow())
                    .text("name", name.strip()), "id")) {
                ps.executeUpdate();
                try (ResultSet rs = ps.getGeneratedKeys()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
        Credentials.Issued token = credentials.issue(id, Scope.SERVICE, null, "created with the tenant");
        return new Created(get(id).orElseThrow(), token.token());
    }

    /** The tenants' (and operators') bearer tokens. */
    public Credentials credentials() {
        return credentials;
    }

    public Optional<Tenant> get(long id) {
        return Optional.ofNullable(store.withConnection(c -> byId.queryOne(c, Params.of().bigint("id", id), Tenants::row)));
    }

    private static Tenant row(ResultSet rs) throws java.sql.SQLException {
        return new Tenant(rs.getLong("id"), rs.getString("name"), Sql.instant(rs, "created_at"));
    }
}
