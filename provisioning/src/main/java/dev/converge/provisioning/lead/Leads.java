package dev.converge.provisioning.lead;

import dev.converge.provisioning.validation.InvalidField;
import dev.converge.provisioning.validation.PublicId;
import dev.converge.store.Store;
import dev.converge.store.Params;
import dev.converge.store.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import java.util.regex.Pattern;

/** Leads of each tenant. Every read is scoped by tenant: another tenant's lead does not exist. */
public final class Leads {
    private static final Pattern EMAIL = Pattern.compile("[^@\\s]{1,64}@[A-Za-z0-9.-]{1,253}\\.[A-Za-z]{2,63}");

    private final Store store;
    private final Sql insert;
    private final Sql get;
    private final Sql setStatus;
    private final Sql byPublicId;

    public Leads(Store store) {
        this.store = store;
        insert = Sql.of(store, "INSERT INTO pv_lead (tenant_id, name, email, status, created_at, updated_at) "
                + "VALUES (:tenant_id, :name, :email, 'lead', {now}, {now})");
        get = Sql.of(store, "SELECT id, tenant_id, name, email, status, created_at, updated_at, public_id FROM pv_lead "
                + "WHERE id = :id AND tenant_id = :tenant_id");
        byPublicId = Sql.of(store, "SELECT id FROM pv_lead WHERE public_id = :public_id AND tenant_id = :tenant_id");
        setStatus = Sql.of(store, "UPDATE pv_lead SET status = :status, updated_at = {now} WHERE id = :id");
    }

    /** Validates and stores a new lead. */
    public Lead create(long tenantId, String name, String email) {
        if (name == null || name.isBlank() || name.length() > 200) {
            throw new InvalidField("name", "must be 1-200 characters");
        }
        if (email == null || email.length() > 320 || !EMAIL.matcher(email).matches()) {
            throw new InvalidField("email", "must be an email address");
        }
        long id = store.withConnection(c -> {
            try (PreparedStatement ps = insert.prepareReturning(c, Params.of().now(store.clock().sqlNow())
                    .bigint("tenant_id", tenantId).text("name", name.strip()).text("email", email.strip()), "id")) {
                ps.executeUpdate();
                try (ResultSet rs = ps.getGeneratedKeys()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
        return get(tenantId, id).orElseThrow();
    }

    public Optional<Lead> get(long tenantId, long id) {
        return store.withConnection(c -> get(c, tenantId, id));
    }

    public Optional<Lead> get(Connection c, long tenantId, long id) throws SQLException {
        return Optional.ofNullable(get.queryOne(c, Params.of().bigint("id", id).bigint("tenant_id", tenantId), Leads::row));
    }

    /**
     * The database id of the tenant's lead a reference names: a public id is looked up; a previous
     * release's database id is taken as it is (every read after this is scoped by tenant anyway).
     */
    public Optional<Long> idOf(long tenantId, PublicId.Ref ref) {
        if (!ref.isPublic()) {
            return Optional.of(ref.legacyId());
        }
        return store.withConnection(c -> Optional.ofNullable(byPublicId.queryOne(c, Params.of()
                .text("public_id", ref.publicId()).bigint("tenant_id", tenantId), rs -> rs.getLong(1))));
    }

    public void setStatus(Connection c, long id, LeadStatus status) throws SQLException {
        setStatus.update(c, Params.of().now(store.clock().sqlNow()).bigint("id", id).text("status", status.sql()));
    }

    private static Lead row(ResultSet rs) throws SQLException {
        return new Lead(rs.getLong("id"), rs.getLong("tenant_id"), rs.getString("name"), rs.getString("email"),
                LeadStatus.fromSql(rs.getString("status")), Sql.instant(rs, "created_at"), Sql.instant(rs, "updated_at"),
                rs.getString("public_id"));
    }
}
