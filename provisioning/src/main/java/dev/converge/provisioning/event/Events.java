package dev.converge.provisioning.event;

import dev.converge.store.Params;
import dev.converge.store.Sql;
import dev.converge.store.Store;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the service reported to the outside world (site active, failed, deleted): recorded with
 * the state change that caused it, and logged. Failures are reported only after compensation.
 */
public final class Events {
    private static final Logger log = LoggerFactory.getLogger(Events.class);

    /** One reported event. */
    public record Event(long id, long tenantId, Long siteId, String kind, String detail, Instant at) {
    }

    private final Store store;
    private final Sql insert;
    private final Sql forSite;
    private final Sql countByKind;

    public Events(Store store) {
        this.store = store;
        insert = Sql.of(store, "INSERT INTO pv_event (tenant_id, site_id, kind, detail, created_at) "
                + "VALUES (:tenant_id, :site_id, :kind, :detail, {now})");
        forSite = Sql.of(store, "SELECT id, tenant_id, site_id, kind, detail, created_at FROM pv_event "
                + "WHERE site_id = :site_id ORDER BY id");
        countByKind = Sql.of(store, "SELECT COUNT(*) FROM pv_event WHERE kind = :kind");
    }

    /** Records an event in the caller's transaction. */
    public void record(Connection c, long tenantId, Long siteId, String kind, String detail) throws SQLException {
        insert.update(c, Params.of().now(store.clock().sqlNow()).bigint("tenant_id", tenantId).bigint("site_id", siteId)
                .text("kind", kind).text("detail", detail));
        log.info("event {} for site {}: {}", kind, siteId, detail);
    }

    public List<Event> forSite(long siteId) {
        return store.withConnection(c -> forSite.query(c, Params.of().bigint("site_id", siteId), rs -> new Event(
                rs.getLong("id"), rs.getLong("tenant_id"), Sql.nullableLong(rs, "site_id"), rs.getString("kind"),
                rs.getString("detail"), Sql.instant(rs, "created_at"))));
    }

    public long count(String kind) {
        return store.withConnection(c -> countByKind.queryOne(c, Params.of().text("kind", kind), rs -> rs.getLong(1)));
    }
}
