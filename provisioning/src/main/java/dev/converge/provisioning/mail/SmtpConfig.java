package dev.converge.provisioning.mail;

import java.time.Duration;
import java.util.Objects;

/**
 * Where welcome mail goes and how long the sender waits at each step. Every socket operation is
 * bounded, so a stalled SMTP server costs a timeout, not a stuck worker.
 *
 * @param from          the envelope and header sender, e.g. {@code welcome@converge.test}
 * @param serverTimeout how long the server keeps a connection on which nothing arrives before it drops it
 *                      and discards an unfinished message (Postfix's {@code smtpd_timeout}; RFC 5321 asks
 *                      for at least 5 minutes); a send abandoned mid-way may land until then. Default 10 minutes
 */
public record SmtpConfig(String host, int port, String from, Duration connectTimeout, Duration readTimeout,
        Duration serverTimeout) {
    /** The server timeout unless one is given: above the 5 minutes RFC 5321 asks servers for. */
    public static final Duration SERVER_TIMEOUT = Duration.ofMinutes(10);

    public SmtpConfig {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(from, "from");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be within 1..65535: " + port);
        }
        connectTimeout = connectTimeout == null ? Duration.ofSeconds(5) : connectTimeout;
        readTimeout = readTimeout == null ? Duration.ofSeconds(15) : readTimeout;
        serverTimeout = serverTimeout == null ? SERVER_TIMEOUT : serverTimeout;
        if (serverTimeout.isNegative() || serverTimeout.isZero() || serverTimeout.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("the SMTP server's timeout must be positive and at most 1h, was "
                    + serverTimeout);
        }
    }

    public static SmtpConfig of(String host, int port, String from) {
        return new SmtpConfig(host, port, from, null, null, null);
    }

    /** The same, for a server that drops an idle connection after {@code timeout}. */
    public SmtpConfig withServerTimeout(Duration timeout) {
        return new SmtpConfig(host, port, from, connectTimeout, readTimeout, timeout);
    }
}
