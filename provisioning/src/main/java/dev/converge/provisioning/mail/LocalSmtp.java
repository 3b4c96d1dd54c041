package dev.converge.provisioning.mail;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import jakarta.mail.Address;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.MimeMessage;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * A real SMTP server in this process (GreenMail on a free loopback port), for tests and the demo.
 * Its mailbox is the ground truth for "how many welcome mails did site X get", independent of
 * what our own database says.
 */
public final class LocalSmtp implements AutoCloseable {
    /** What the server received, with the headers a checker counts by. */
    public record ReceivedMail(String messageId, String from, List<String> to, String subject, String siteId,
            String sendToken, String kind) {
        /** A welcome email (also one from before messages carried their kind). */
        public boolean welcome() {
            return kind == null || SmtpMailer.WELCOME.equals(kind);
        }
    }

    private final GreenMail greenMail;

    private LocalSmtp(GreenMail greenMail) {
        this.greenMail = greenMail;
    }

    public static LocalSmtp start() {
        return start(IDLE_TIMEOUT);
    }

    /** The server's idle timeout unless one is given: GreenMail's own. */
    public static final Duration IDLE_TIMEOUT = Duration.ofSeconds(30);

    /**
     * A server that drops a connection from which nothing arrived for {@code idleTimeout}, as every
     * SMTP server does (RFC 5321 4.5.3.2.7): a message whose DATA stalled that long is discarded.
     */
    public static LocalSmtp start(Duration idleTimeout) {
        int ms = idleMillis(idleTimeout);
        GreenMail greenMail = new GreenMail(new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
        greenMail.start();
        greenMail.getSmtp().setClientSocketTimeout(ms);
        return new LocalSmtp(greenMail);
    }

    static int idleMillis(Duration idleTimeout) {
        if (idleTimeout == null || idleTimeout.isNegative() || idleTimeout.isZero()
                || idleTimeout.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("the SMTP server's idle timeout must be positive and at most 1h, was "
                    + idleTimeout);
        }
        return (int) idleTimeout.toMillis();
    }

    public String host() {
        return "127.0.0.1";
    }

    public int port() {
        return greenMail.getSmtp().getPort();
    }

    /** Settings for an {@link SmtpMailer} that sends here. */
    public SmtpConfig config(String from) {
        return SmtpConfig.of(host(), port(), from);
    }

    public List<ReceivedMail> received() {
        return Arrays.stream(greenMail.getReceivedMessages()).map(LocalSmtp::describe).toList();
    }

    /** How many received welcome mails carry {@code X-Converge-Site: siteId}. */
    public long countForSite(String siteId) {
        return received().stream().filter(mail -> mail.welcome() && siteId.equals(mail.siteId())).count();
    }

    /** How many received trial reminders carry {@code X-Converge-Site: siteId}. */
    public long remindersForSite(String siteId) {
        return received().stream().filter(mail -> SmtpMailer.TRIAL_REMINDER.equals(mail.kind())
                && siteId.equals(mail.siteId())).count();
    }

    /** Waits until at least {@code count} mails arrived; false on timeout. */
    public boolean awaitMessages(int count, Duration timeout) {
        return greenMail.waitForIncomingEmail(timeout.toMillis(), count);
    }

    @Override
    public void close() {
        greenMail.stop();
    }

    private static ReceivedMail describe(MimeMessage message) {
        try {
            Address[] from = message.getFrom();
            Address[] to = message.getAllRecipients();
            return new ReceivedMail(message.getMessageID(), from == null || from.length == 0 ? null : from[0].toString(),
                    to == null ? List.of() : Arrays.stream(to).map(Address::toString).toList(), message.getSubject(),
                    message.getHeader(SmtpMailer.SITE_HEADER, null), message.getHeader(SmtpMailer.TOKEN_HEADER, null),
                    message.getHeader(SmtpMailer.KIND_HEADER, null));
        } catch (MessagingException e) {
            throw new IllegalStateException("GreenMail holds an unreadable message", e);
        }
    }
}
