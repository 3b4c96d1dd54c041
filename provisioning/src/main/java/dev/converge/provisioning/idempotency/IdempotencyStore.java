package dev.converge.provisioning.idempotency;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.store.Params;
import dev.converge.store.Sql;
import dev.converge.store.Store;
import dev.converge.store.StoreException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The SQL of {@code pv_idempotency}: claim, then complete (R9 applied to our own API). A key is
 * claimed by inserting an {@code in_flight} row behind the primary key (tenant, key), committed
 * before the work starts, so a concurrent duplicate meets the unique violation and is told "in
 * flight" instead of doing the work again (R10). The final response is written in a follow-up
 * statement; a failed attempt deletes its claim so the client may retry. Times come from the
 * database clock, like every other expiry in the engine.
 *
 * <p>A claim whose holder died between claim and completion would block its key until expiry; one
 * older than the in-flight timeout may therefore be taken over, by exactly one caller (a
 * conditional update). The work it repeats is idempotent by its own constraint (a site request
 * for a subdomain already held answers "taken"), so a takeover cannot duplicate anything.
 */
public final class IdempotencyStore {
    private static final TypeReference<Map<String, String>> HEADERS = new TypeReference<>() {
    };
    private static final int MAX_ATTEMPTS = 5;

    private final Store store;
    private final ObjectMapper json = new ObjectMapper();
    private final Sql insert;
    private final Sql find;
    private final Sql dropExpired;
    private final Sql takeOver;
    private final Sql complete;
    private final Sql release;
    private final Sql purge;

    public IdempotencyStore(Store store) {
        this.store = store;
        insert = Sql.of(store, "INSERT INTO pv_idempotency (tenant_id, idem_key, request_hash, state, created_at, expires_at) "
                + "VALUES (:tenant_id, :idem_key, :hash, 'in_flight', {now}, {now+:ttl_ms})");
        find = Sql.of(store, "SELECT request_hash, state, response_status, response_body, response_headers, "
                + "CASE WHEN expires_at <= {now} THEN 1 ELSE 0 END AS expired "
                + "FROM pv_idempotency WHERE tenant_id = :tenant_id AND idem_key = :idem_key");
        dropExpired = Sql.of(store, "DELETE FROM pv_idempotency WHERE tenant_id = :tenant_id AND idem_key = :idem_key "
                + "AND expires_at <= {now}");
        takeOver = Sql.of(store, "UPDATE pv_idempotency SET created_at = {now}, expires_at = {now+:ttl_ms} "
                + "WHERE tenant_id = :tenant_id AND idem_key = :idem_key AND request_hash = :hash AND state = 'in_flight' "
                + "AND created_at < {now+:stale_ms}");
        complete = Sql.of(store, "UPDATE pv_idempotency SET state = 'completed', response_status = :status, "
                + "response_body = :body, response_headers = :headers "
                + "WHERE tenant_id = :tenant_id AND idem_key = :idem_key AND state = 'in_flight'");
        release = Sql.of(store, "DELETE FROM pv_idempotency WHERE tenant_id = :tenant_id AND idem_key = :idem_key "
                + "AND state = 'in_flight'");
        purge = Sql.of(store, "DELETE FROM pv_idempotency WHERE expires_at <= {now}");
    }

    private record Row(String hash, String state, Integer status, String body, String headers, boolean expired) {
    }

    /**
     * Claims the key for a request with this fingerprint, or says why not.
     *
     * @param ttl             how long the key (and its final response) is remembered
     * @param inFlightTimeout after this, an unfinished claim is presumed abandoned and may be taken over
     */
    public ClaimOutcome claim(long tenantId, IdempotencyKey key, String fingerprint, Duration ttl,
            Duration inFlightTimeout) {
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            if (tryInsert(tenantId, key, fingerprint, ttl)) {
                return new ClaimOutcome.Claimed();
            }
            Optional<Row> found = find(tenantId, key);
            if (found.isEmpty()) {
                continue; // released or purged since our insert failed: try again
            }
            Row row = found.get();
            if (row.expired()) {
                store.withConnection(c -> dropExpired.update(c, keyParams(tenantId, key)));
                continue;
            }
            if (!row.hash().equals(fingerprint)) {
                return new ClaimOutcome.Mismatch();
            }
            if ("completed".equals(row.state())) {
                return new ClaimOutcome.Replay(new StoredResponse(row.status(), row.body(), headers(row.headers())));
            }
            boolean taken = store.withConnection(c -> takeOver.update(c, keyParams(tenantId, key).text("hash", fingerprint)
                    .bigint("ttl_ms", ttl.toMillis()).bigint("stale_ms", -inFlightTimeout.toMillis())) == 1);
            return taken ? new ClaimOutcome.Claimed() : new ClaimOutcome.InFlight();
        }
        return new ClaimOutcome.InFlight();
    }

    private boolean tryInsert(long tenantId, IdempotencyKey key, String fingerprint, Duration ttl) {
        try {
            store.withConnection(c -> insert.update(c, keyParams(tenantId, key).text("hash", fingerprint)
                    .bigint("ttl_ms", ttl.toMillis())));
            return true;
        } catch (StoreException e) {
            if (e.isUniqueViolation()) {
                return false;
            }
            throw e;
        }
    }

    private Optional<Row> find(long tenantId, IdempotencyKey key) {
        return Optional.ofNullable(store.withConnection(c -> find.queryOne(c, keyParams(tenantId, key),
                IdempotencyStore::row)));
    }

    /** Records the final response of a claimed key; false if the claim was no longer ours (taken over). */
    public boolean complete(long tenantId, IdempotencyKey key, StoredResponse response) {
        String headers = writeHeaders(response.headers());
        return store.withConnection(c -> complete.update(c, keyParams(tenantId, key).integer("status", response.status())
                .text("body", response.body()).text("headers", headers))) == 1;
    }

    /** Gives a claimed key back, so the client may retry it (after a failure that is not final). */
    public void release(long tenantId, IdempotencyKey key) {
        store.withConnection(c -> release.update(c, keyParams(tenantId, key)));
    }

    /** Deletes every expired key; returns how many. Their keys can be used again. */
    public int purgeExpired() {
        return store.withConnection(c -> purge.update(c, Params.of().now(store.clock().sqlNow())));
    }

    private Params keyParams(long tenantId, IdempotencyKey key) {
        return Params.of().now(store.clock().sqlNow()).bigint("tenant_id", tenantId).text("idem_key", key.value());
    }

    private static Row row(ResultSet rs) throws SQLException {
        return new Row(rs.getString("request_hash"), rs.getString("state"), Sql.nullableInt(rs, "response_status"),
                rs.getString("response_body"), rs.getString("response_headers"), rs.getInt("expired") == 1);
    }

    private String writeHeaders(Map<String, String> headers) {
        try {
            return json.writeValueAsString(headers);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("headers do not serialize", e);
        }
    }

    private Map<String, String> headers(String stored) {
        if (stored == null || stored.isEmpty()) {
            return Map.of();
        }
        try {
            return json.readValue(stored, HEADERS);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored response headers are not JSON", e);
        }
    }
}
