package dev.converge.dashboard;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The dashboard's sessions: an operator token, exchanged once, becomes a cookie the page cannot
 * read that names the operator's id and an expiry, signed with a secret (HMAC-SHA256). Nothing is
 * stored: the signature proves this dashboard issued it, and every request still asks the
 * application whether the operator is live. The CSRF token is derived from the session's random
 * nonce with the same secret, so only a page that read the exchange's answer can send it.
 */
final class Sessions {
    static final String COOKIE = "converge_session";
    static final String CSRF_HEADER = "X-CSRF-Token";
    /** How long a session lasts (never past its operator's own expiry). */
    static final Duration TTL = Duration.ofHours(8);
    private static final Pattern VALUE = Pattern.compile(
            "v2\\.([A-Za-z0-9_-]{1,64})\\.(\\d{1,12})\\.([A-Za-z0-9_-]{22})\\.([A-Za-z0-9_-]{43})");
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final int MAX_ENDED = 10_000;

    /** A verified session: whose, until when, its CSRF token, and the nonce that names it. */
    record Session(String operatorId, Instant expiresAt, String csrf, String nonce) {
        @Override
        public String toString() {
            return "Session[operator " + operatorId + ", until " + expiresAt + "]";
        }
    }

    /** A new session's cookie value (secret: never logged) and the session it stands for. */
    record Issued(String cookie, Session session) {
        @Override
        public String toString() {
            return "Issued[" + session + ", cookie=***]";
        }
    }

    private final byte[] secret;
    /** Sessions ended by logout on this process: nonce -> when the session would have expired. */
    private final Map<String, Instant> ended = new ConcurrentHashMap<>();

    /** With {@code secret}, or a random one for this process when null. */
    Sessions(byte[] secret) {
        if (secret == null) {
            secret = new byte[32];
            RANDOM.nextBytes(secret);
        }
        this.secret = secret.clone();
    }

    /** A session for an operator until {@code now + TTL}, or the operator's own expiry if sooner. */
    Issued issue(String operatorId, Instant operatorExpiresAt, Instant now) {
        Instant until = now.plus(TTL);
        if (operatorExpiresAt != null && operatorExpiresAt.isBefore(until)) {
            until = operatorExpiresAt;
        }
        byte[] n = new byte[16];
        RANDOM.nextBytes(n);
        String nonce = B64.encodeToString(n);
        String body = "v2." + operatorId + "." + until.getEpochSecond() + "." + nonce;
        return new Issued(body + "." + sign("session:" + body), new Session(operatorId,
                Instant.ofEpochSecond(until.getEpochSecond()), sign("csrf:" + nonce), nonce));
    }

    /** The session a cookie value stands for, if this dashboard signed it and it has not expired or ended. */
    Optional<Session> verify(String cookie, Instant now) {
        if (cookie == null || cookie.length() > 250) {
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
        return Optional.of(new Session(m.group(1), until, sign("csrf:" + m.group(3)), m.group(3)));
    }

    /**
     * Ends a session on this process (logout): a copy of its cookie is refused from now on, until it
     * would have expired anyway. At most {@value #MAX_ENDED} remembered at once.
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
