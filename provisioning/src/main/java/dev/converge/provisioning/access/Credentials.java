package dev.converge.provisioning.access;

import dev.converge.store.Store;
import dev.converge.store.Params;
import dev.converge.store.Sql;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Bearer tokens ({@code pv_token}) with one {@link Scope} each: issued, checked, listed and revoked.
 * A token is 32 random bytes shown once; only its SHA-256 is stored. A string that cannot be one of
 * our tokens is refused without a query, and recent answers are cached briefly, so a flood of
 * made-up tokens costs no database work. Revocation is seen at once by this process and within
 * {@link #CACHE_TTL} by every other.
 */
public final class Credentials {
    /** How long a lookup's answer is reused. Bounds how late another process sees a revocation. */
    public static final Duration CACHE_TTL = Duration.ofSeconds(5);
    private static final int CACHE_MAX = 10_000;
    private static final Pattern FORMAT = Pattern.compile("cv[to]_[A-Za-z0-9_-]{43}");
    private static final SecureRandom RANDOM = new SecureRandom();

    /** A token just issued: {@code token} exists only here and cannot be shown again. */
    public record Issued(TokenInfo info, String token) {
        @Override
        public String toString() {
            return "Issued[" + info + ", token=***]";
        }
    }

    /**
     * A token as it can be listed: never its secret. {@code id} is the database's key;
     * {@code publicId} ({@code tok_...}, random) is the one to show.
     */
    public record TokenInfo(long id, Long tenantId, Scope scope, String label, Instant createdAt, Instant expiresAt,
            Instant revokedAt, String publicId) {
    }

    /** A token's public id: {@code tok_} and 32 hex digits, random. */

    private record Cached(Optional<Credential> credential, long until) {
    }

    private final Store store;
    private final java.util.concurrent.atomic.LongAdder lookups = new java.util.concurrent.atomic.LongAdder();
    private final Sql insert;
    private final Sql insertExpiring;
    private final Sql byId;
    private final Sql byPublicId;
    private final Sql byHash;
    private final Sql revokeTenant;
    private final Sql revokeOperator;
    private final Sql list;
    private final Map<String, Cached> cache = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Cached> eldest) {
            return size() > CACHE_MAX;
        }
    };

    public Credentials(Store store) {
        this.store = Objects.requireNonNull(store, "store");
        insert = Sql.of(store, "INSERT INTO pv_token (tenant_id, scope, token_hash, label, created_at, expires_at) "
                + "VALUES (:tenant_id, :scope, :hash, :label, {now}, NULL)");
        insertExpiring = Sql.of(store, "INSERT INTO pv_token (tenant_id, scope, token_hash, label, created_at, expires_at) "
                + "VALUES (:tenant_id, :scope, :hash, :label, {now}, {now+:ttl_ms})");
        String columns = "SELECT id, tenant_id, scope, label, created_at, expires_at, revoked_at, public_id FROM pv_token ";
        byPublicId = Sql.of(store, "SELECT id FROM pv_token WHERE public_id = :public_id");
        byId = Sql.of(store, columns + "WHERE id = :id");
        byHash = Sql.of(store, "SELECT k.id, k.tenant_id, k.scope, k.expires_at, t.name, t.created_at FROM pv_token k "
                + "LEFT JOIN pv_tenant t ON t.id = k.tenant_id WHERE k.token_hash = :hash AND k.revoked_at IS NULL "
                + "AND (k.expires_at IS NULL OR k.expires_at > {now})");
        revokeTenant = Sql.of(store, "UPDATE pv_token SET revoked_at = {now} WHERE id = :id AND tenant_id = :tenant_id "
                + "AND revoked_at IS NULL");
        revokeOperator = Sql.of(store, "UPDATE pv_token SET revoked_at = {now} WHERE id = :id AND tenant_id IS NULL "
                + "AND revoked_at IS NULL");
        list = Sql.of(store, columns + "WHERE (tenant_id = :tenant_id OR (:operator = 1 AND tenant_id IS NULL)) ORDER BY id");
    }

    /** Issues a tenant's token of {@code scope} (agent, service or approver); {@code ttl} null: no expiry. */
    public Issued issue(long tenantId, Scope scope, Duration ttl, String label) {
        if (!Scope.TENANT.contains(scope)) {
            throw new IllegalArgumentException("a tenant's token has scope " + Scope.names(Scope.TENANT)
                    + "; an operator token belongs to no tenant");
        }
        return insert(tenantId, scope, ttl, label);
    }

    /** Issues an operator token: the ops surface, no tenant. */
    public Issued issueOperator(Duration ttl, String label) {
        return insert(null, Scope.OPERATOR, ttl, label);
    }

    private Issued insert(Long tenantId, Scope scope, Duration ttl, String label) {
        if (ttl != null && (ttl.isNegative() || ttl.isZero())) {
            throw new IllegalArgumentException("a token's lifetime must be positive");
        }
        if (label != null && label.length() > 200) {
            throw new IllegalArgumentException("a token's label must be at most 200 characters");
        }
        byte[] raw = new byte[32];
        RANDOM.nextBytes(raw);
        String token = (scope == Scope.OPERATOR ? "cvo_" : "cvt_") + Base64.getUrlEncoder().withoutPadding()
                .encodeToString(raw);
        TokenInfo info = store.withConnection(c -> {
            long id;
            Params p = Params.of().now(store.clock().sqlNow()).bigint("tenant_id", tenantId).text("scope", scope.sql())
                    .text("hash", hash(token)).text("label", label);
            try (PreparedStatement ps = ttl == null ? insert.prepareReturning(c, p, "id")
                    : insertExpiring.prepareReturning(c, p.bigint("ttl_ms", ttl.toMillis()), "id")) {
                ps.executeUpdate();
                try (ResultSet rs = ps.getGeneratedKeys()) {
                    rs.next();
                    id = rs.getLong(1);
                }
            }
            return byId.queryOne(c, Params.of().bigint("id", id), Credentials::info);
        });
        return new Issued(info, token);
    }

    /** The credential a bearer token stands for, if it is one of ours, unexpired and not revoked. */
    public Optional<Credential> authenticate(String token) {
        if (token == null || !FORMAT.matcher(token).matches()) {
            return Optional.empty();
        }
        String hash = hash(token);
        long now = System.nanoTime();
        synchronized (cache) {
            Cached hit = cache.get(hash);
            if (hit != null && now - hit.until() < 0 && hit.credential().map(this::unexpired).orElse(true)) {
                return hit.credential();
            }
        }
        lookups.increment();
        Optional<Credential> found = Optional.ofNullable(store.withConnection(c -> byHash.queryOne(c,
                Params.of().now(store.clock().sqlNow()).text("hash", hash), Credentials::credential)));
        synchronized (cache) {
            cache.put(hash, new Cached(found, now + CACHE_TTL.toNanos()));
        }
        return found;
    }

    /** Bearer tokens looked up in the database so far (answers from the cache not counted). */
    public long lookups() {
        return lookups.sum();
    }

    /**
     * The operator credential with this token id, if it is live (unexpired, not revoked): what a
     * dashboard session stands for, checked on each of its requests. Cached like {@link #authenticate}.
     */
    public Optional<Credential> operator(long tokenId) {
        String key = "id:" + tokenId; // never a hash: hashes are hex
        long now = System.nanoTime();
        synchronized (cache) {
            Cached hit = cache.get(key);
            if (hit != null && now - hit.until() < 0 && hit.credential().map(this::unexpired).orElse(true)) {
                return hit.credential();
            }
        }
        Optional<Credential> found = Optional.ofNullable(store.withConnection(c -> byId.queryOne(c,
                Params.of().bigint("id", tokenId), Credentials::info)))
                .filter(i -> i.scope() == Scope.OPERATOR && i.tenantId() == null && i.revokedAt() == null)
                .map(i -> new Credential(i.id(), i.scope(), null, i.expiresAt()))
                .filter(this::unexpired);
        synchronized (cache) {
            cache.put(key, new Cached(found, now + CACHE_TTL.toNanos()));
        }
        return found;
    }

    private boolean unexpired(Credential c) {
        return c.expiresAt() == null || c.expiresAt().isAfter(Instant.now());
    }

    /**
     * Revokes a tenant's token ({@code tenantId} given) or an operator token ({@code tenantId} null).
     * False if there is no such live token (another tenant's token is not this tenant's to revoke).
     */
    public boolean revoke(long tokenId, Long tenantId) {
        boolean done = store.withConnection(c -> (tenantId == null ? revokeOperator : revokeTenant).update(c,
                Params.of().now(store.clock().sqlNow()).bigint("id", tokenId).bigint("tenant_id", tenantId)) == 1);
        synchronized (cache) {
            cache.clear(); // by id we do not know the hash; revocations are rare
        }
        return done;
    }

    /**
     * The database id of the token {@code ref} names: its public id ({@code tok_...}) or, as a node
     * of the previous release listed them, its database id. Empty when no token has that public id;
     * a malformed reference is refused.
     */
    public Optional<Long> idOf(String ref) {
        if (dev.converge.provisioning.validation.PublicId.TOKEN.matches(ref)) {
            return Optional.ofNullable(store.withConnection(c -> byPublicId.queryOne(c, Params.of().text("public_id", ref),
                    rs -> rs.getLong(1))));
        }
        if (ref != null && ref.matches("[1-9][0-9]{0,17}")) {
            return Optional.of(Long.parseLong(ref));
        }
        throw new IllegalArgumentException("a token id is tok_ and 32 hex digits (from 'token list'); got: " + ref);
    }

    /** A tenant's tokens, or (with {@code tenantId} null) the operator tokens; revoked ones included. */
    public List<TokenInfo> list(Long tenantId) {
        return store.withConnection(c -> list.query(c, Params.of().bigint("tenant_id", tenantId == null ? -1L : tenantId)
                .integer("operator", tenantId == null ? 1 : 0), Credentials::info));
    }

    private static TokenInfo info(ResultSet rs) throws SQLException {
        return new TokenInfo(rs.getLong("id"), Sql.nullableLong(rs, "tenant_id"), Scope.parse(rs.getString("scope")),
                rs.getString("label"), Sql.instant(rs, "created_at"), Sql.instant(rs, "expires_at"),
                Sql.instant(rs, "revoked_at"), rs.getString("public_id"));
    }

    private static Credential credential(ResultSet rs) throws SQLException {
        Long tenantId = Sql.nullableLong(rs, "tenant_id");
        Tenant tenant = tenantId == null ? null : new Tenant(tenantId, rs.getString("name"), Sql.instant(rs, "created_at"));
        return new Credential(rs.getLong("id"), Scope.parse(rs.getString("scope")), tenant, Sql.instant(rs, "expires_at"));
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
