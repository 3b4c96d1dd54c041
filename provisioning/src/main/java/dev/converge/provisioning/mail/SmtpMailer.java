package dev.converge.provisioning.mail;

import dev.converge.ledger.AmbiguousOutcome;
import dev.converge.ledger.LeafRejected;
import jakarta.mail.AuthenticationFailedException;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.URLName;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import org.eclipse.angus.mail.smtp.SMTPSendFailedException;
import org.eclipse.angus.mail.smtp.SMTPAddressFailedException;
import org.eclipse.angus.mail.smtp.SMTPSenderFailedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends welcome emails over SMTP, once per call, and reports exactly what the server said.
 * Sending is not safe to repeat, so the engine guards it with a single-use token; this class never
 * retries. Accepted (250 after DATA) gives a {@link MailReceipt}; a refusal or a failure before the
 * end of DATA was sent is {@link LeafRejected} (nothing was accepted); a connection lost after the
 * end of DATA was sent is {@link AmbiguousOutcome} (the message may be on its way).
 */
public final class SmtpMailer {
    public static final String LEAF = "smtp";
    public static final String SITE_HEADER = "X-Converge-Site";
    public static final String TOKEN_HEADER = "X-Converge-Send-Token";
    /** What the message is: {@link #WELCOME} or {@link #TRIAL_REMINDER}; a checker counts each kind apart. */
    public static final String KIND_HEADER = "X-Converge-Mail";
    public static final String WELCOME = "welcome";
    public static final String TRIAL_REMINDER = "trial-reminder";
    private static final Logger log = LoggerFactory.getLogger(SmtpMailer.class);

    private final SmtpConfig config;
    private final Session session;

    public SmtpMailer(SmtpConfig config) {
        this.config = config;
        Properties props = new Properties();
        props.setProperty("mail.smtp.connectiontimeout", String.valueOf(config.connectTimeout().toMillis()));
        props.setProperty("mail.smtp.timeout", String.valueOf(config.readTimeout().toMillis()));
        props.setProperty("mail.smtp.writetimeout", String.valueOf(config.readTimeout().toMillis()));
        props.setProperty("mail.smtp.from", config.from());
        this.session = Session.getInstance(props);
    }

    /**
     * How long a send this mailer started, and that its sender then abandoned (stopped or cut off
     * before the end of DATA), may still be completed: the server's timeout, after which it has
     * dropped the connection and the unfinished message, and a second for it to file what arrived.
     */
    public Duration abandonedSendWindow() {
        return config.serverTimeout().plusSeconds(1);
    }

    public MailReceipt send(WelcomeEmail mail) {
        return send(mail, () -> { });
    }

    /**
     * Sends once; {@code lastCheck} runs right before the end of DATA, the point of no return. A
     * sender that may have been paused (SIGSTOP, a long GC) throws there if it lost the right to
     * send meanwhile, and the unfinished message is discarded by the server instead of going out
     * after another sender already sent it.
     */
    public MailReceipt send(WelcomeEmail mail, Runnable lastCheck) {
        return send(new Outgoing(WELCOME, mail.to(), mail.siteId(), mail.sendToken(), "Welcome to " + mail.siteName(),
                "Your site " + mail.siteName() + " is ready at " + mail.siteUrl() + ".\n"), lastCheck);
    }

    /** Sends a trial's reminder once, as {@link #send(WelcomeEmail, Runnable)} sends a welcome. */
    public MailReceipt send(TrialReminderEmail mail, Runnable lastCheck) {
        String subscribe = mail.accountUrl() == null ? "Subscribe through your account to keep it."
                : "Subscribe at " + mail.accountUrl() + " to keep it.";
        return send(new Outgoing(TRIAL_REMINDER, mail.to(), mail.siteId(), mail.sendToken(),
                "The trial of " + mail.siteName() + " ends soon",
                "The trial of your site " + mail.siteName() + " (" + mail.siteUrl() + ") ends at " + mail.deadline()
                        + ". " + subscribe + " Without a subscription the site is taken down then.\n"), lastCheck);
    }

    /** One message of one kind about one site, as it goes out. */
    private record Outgoing(String kind, String to, String siteId, String sendToken, String subject, String text) {
    }

    private MailReceipt send(Outgoing mail, Runnable lastCheck) {
        String messageId = "<" + mail.kind() + "." + mail.siteId() + "." + mail.sendToken() + "@converge>";
        MimeMessage message = compose(mail, messageId);
        StagedSmtpTransport transport = new StagedSmtpTransport(session,
                new URLName("smtp", config.host(), config.port(), null, null, null), lastCheck);
        try {
            transport.connect(config.host(), config.port(), null, null);
        } catch (AuthenticationFailedException e) {
            throw new LeafRejected(LEAF, "SMTP authentication failed", 0, false, null, e);
        } catch (MessagingException e) {
            throw new LeafRejected(LEAF, "could not connect to the SMTP server; nothing was sent", 0, true, null, e);
        }
        try {
            transport.sendMessage(message, message.getAllRecipients());
            String accepted = transport.getLastServerResponse();
            log.debug("{} mail {} for site {} accepted: {}", mail.kind(), messageId, mail.siteId(), accepted);
            return new MailReceipt(messageId, mail.to(), accepted, Instant.now());
        } catch (MessagingException e) {
            throw classify(e, transport.stage(), messageId);
        } finally {
            closeQuietly(transport);
        }
    }

    private RuntimeException classify(MessagingException e, StagedSmtpTransport.Stage stage, String messageId) {
        int code = replyCode(e);
        if (code >= 400 && code < 600) {
            return new LeafRejected(LEAF, "the SMTP server refused " + messageId + " (" + code + ")", code, code < 500,
                    null, e);
        }
        if (stage == StagedSmtpTransport.Stage.END_OF_DATA_SENT) {
            return new AmbiguousOutcome(LEAF, "connection lost after the end of DATA for " + messageId
                    + "; the message may have been accepted", e);
        }
        return new LeafRejected(LEAF, "connection lost before the message was complete (" + stage
                + "); nothing was accepted", 0, true, null, e);
    }

    /** The server's reply code carried by the exception, or -1 when the connection failed without one. */
    private static int replyCode(MessagingException e) {
        for (Exception cause = e; cause != null; ) {
            if (cause instanceof SMTPSendFailedException failed) {
                return failed.getReturnCode();
            }
            if (cause instanceof SMTPAddressFailedException failed) {
                return failed.getReturnCode();
            }
            if (cause instanceof SMTPSenderFailedException failed) {
                return failed.getReturnCode();
            }
            cause = cause instanceof MessagingException m ? m.getNextException() : null;
        }
        return -1;
    }

    private MimeMessage compose(Outgoing mail, String messageId) {
        try {
            MimeMessage message = new FixedIdMessage(session, messageId);
            message.setFrom(new InternetAddress(config.from(), true));
            message.setRecipient(Message.RecipientType.TO, new InternetAddress(mail.to(), true));
            message.setSubject(mail.subject(), "UTF-8");
            message.setText(mail.text(), "UTF-8");
            message.setHeader(KIND_HEADER, mail.kind());
            message.setHeader(SITE_HEADER, mail.siteId());
            message.setHeader(TOKEN_HEADER, mail.sendToken());
            message.saveChanges();
            return message;
        } catch (MessagingException e) {
            throw new IllegalArgumentException("cannot build the " + mail.kind() + " email: " + e.getMessage(), e);
        }
    }

    private static void closeQuietly(StagedSmtpTransport transport) {
        try {
            transport.close();
        } catch (MessagingException e) {
            log.debug("closing the SMTP connection failed: {}", e.getMessage());
        }
    }

    /** Keeps our Message-ID: MimeMessage would otherwise replace it on saveChanges(). */
    private static final class FixedIdMessage extends MimeMessage {
        private final String messageId;

        FixedIdMessage(Session session, String messageId) {
            super(session);
            this.messageId = messageId;
        }

        @Override
        protected void updateMessageID() throws MessagingException {
            setHeader("Message-ID", messageId);
        }
    }
}
