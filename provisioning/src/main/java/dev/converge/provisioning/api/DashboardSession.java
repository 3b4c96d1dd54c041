package dev.converge.provisioning.api;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The dashboard's session: an operator token, exchanged once, becomes a cookie the page cannot
 * read (HttpOnly, SameSite=Strict, Secure over https) that names the token's id and an expiry,
 * signed with a server secret (HMAC-SHA256). Nothing is stored: the signature proves the server
 * issued it, and every request still checks that the operator token is live (a revoked token
 * ends its sessions). The CSRF token is derived from the session's random nonce with the same
 * secret, so only a page that read the exchange's answer can send it.
 *
 * <p>The secret comes from {@value #SECRET_ENV} (at least 32 characters); without it each process
 * draws a random one, so sessions end when the process restarts and do not cross processes.
 */
public final class DashboardSession {
    public static final String SECRET_ENV = "CONVERGE_DASHBOARD_SECRET";
    static final String COOKIE = "converge_session";
    static final String CSRF_HEADER = "X-CSRF-Token";
    /** How long a session lasts (never past its operator token's own expiry). */
    static final Duration TTL = Duration.ofHours(8);
    private static final Pattern VALUE = Pattern.compile("v1\\.(\\d{1,18})\\.(\\d{1,12})\\.([A-Za-z0-9_-]{22})\\.([A-Za-z0-9_-]{43})");
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

    /** A verified session: whose token, until when, its CSRF token, and the nonce that names it. */
    public record Session(long tokenId, Instant expiresAt, String csrf, String nonce) {
        @Override
        public String toString() {
            return "Session[token " + tokenId + ", until " + expiresAt + "]";
        }
    }

    /** A new session's cookie value (secret: never logged) and the session it stands for. */
    record Issued(String cookie, Session session) {
        @Override
        public String toString() {
            return "Issued[" + session + ", cookie=***]";
        }
    }

    private static final int MAX_ENDED = 10_000;

    private final byte[] secret;
    private final boolean fromEnvironment;
    /** Sessions ended by logout on this process: nonce -> when the session would have expired. */
    private final java.util.Map<String, Instant> ended = new java.util.concurrent.ConcurrentHashMap<>();

    private DashboardSession(byte[] secret, boolean fromEnvironment) {
        this.secret = secret.clone();
        this.fromEnvironment = fromEnvironment;
    }

    /** With {@value #SECRET_ENV} from {@code env} when set, else a random secret for this process. */
    public static DashboardSession fromEnvironment(Map<String, String> env) {
        String configured = env.get(SECRET_ENV);
        if (configured == null || configured.isBlank()) {
            byte[] random = new byte[32];
            RANDOM.nextBytes(random);
            return new DashboardSession(random, false);
        }
        if (configured.strip().length() < 32) {
            throw new IllegalArgumentException(SECRET_ENV + " must be at least 32 characters");
        }
        return new DashboardSession(configured.strip().getBytes(StandardCharsets.UTF_8), true);
    }

    /** Whether the secret was configured (sessions survive a restart and cross processes) or drawn at start. */
    public boolean configured() {
        return fromEnvironment;
    }

    /** A session for an operator token until {@code now + TTL}, or the token's own expiry if sooner. */
    Issued issue(long tokenId, Instant tokenExpiresAt, Instant now) {
        Instant until = now.plus(TTL);
        if (tokenExpiresAt != null && tokenExpiresAt.isBefore(until)) {
            until = tokenExpiresAt;
        }
        byte[] n = new byte[16];
        RANDOM.nextBytes(n);
        String nonce = B64.encodeToString(n);
        String body = "v1." + tokenId + "." + until.getEpochSecond() + "." + nonce;
        return new Issued(body + "." + sign("session:" + body), new Session(tokenId, Instant.ofEpochSecond(
                until.getEpochSecond()), sign("csrf:" + nonce), nonce));
    }

    /** The session a cookie value stands for, if this server signed it and it has not expired. */
    Optional<Session> verify(String cookie, Instant now) {
        if (cookie == null || cookie.length() > 200) {
            return Optional.empty();
        }
        Matcher m = VALUE.matcher(cookie);
        if (!m.matches()) {
            return Optional.empty();
        }
        String body = cookie.substring(0, cookie.lastIndexOf('.'));
        if (!equal(sign("session:" + body), m.group(4))) {
            return Optional.empty();
        }
        Instant until = Instant.ofEpochSecond(Long.parseLong(m.group(2)));
        if (!until.isAfter(now) || ended.containsKey(m.group(3))) {
            return Optional.empty();
        }
        return Optional.of(new Session(Long.parseLong(m.group(1)), until, sign("csrf:" + m.group(3)), m.group(3)));
    }

    /**
     * Ends a session on this process (logout): a copy of its cookie is refused from now on, until
     * it would have expired anyway. Remembered in memory, at most {@value #MAX_ENDED} at once (the
     * oldest forgotten first); another process with the same secret learns of it only by the
     * browser having dropped the cookie.
     */
    void end(Session session, Instant now) {
        ended.values().removeIf(until -> !until.isAfter(now));
        while (ended.size() >= MAX_ENDED) {
            ended.keySet().stream().findFirst().ifPresent(ended::remove);
        }
        ended.put(session.nonce(), session.expiresAt());
    }

    /** Whether {@code header} is this session's CSRF token (compared in constant time). */
    static boolean csrfMatches(Session session, String header) {
        return header != null && equal(session.csrf(), header.strip());
    }

    private String sign(String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return B64.encodeToString(mac.doFinal(data.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }

    private static boolean equal(String a, String b) {
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }
}
