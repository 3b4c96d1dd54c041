package dev.converge.provisioning.mail;

import java.time.Duration;
import java.util.Objects;

/**
 * Where welcome mail goes and how long the sender waits at each step. Every socket operation is
 * bounded, so a stalled SMTP server costs a timeout, not a stuck worker.
 *
 * @param from the envelope and header sender, e.g. {@code welcome@converge.test}
 */
public record SmtpConfig(String host, int port, String from, Duration connectTimeout, Duration readTimeout) {
    public SmtpConfig {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(from, "from");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be within 1..65535: " + port);
        }
        connectTimeout = connectTimeout == null ? Duration.ofSeconds(5) : connectTimeout;
        readTimeout = readTimeout == null ? Duration.ofSeconds(15) : readTimeout;
    }

    public static SmtpConfig of(String host, int port, String from) {
        return new SmtpConfig(host, port, from, null, null);
    }
}
