package dev.converge.provisioning.site;

import dev.converge.provisioning.mail.MailLookup;
import dev.converge.provisioning.mail.MailReceipt;
import dev.converge.provisioning.mail.SmtpMailer;
import dev.converge.provisioning.mail.TrialReminderEmail;
import dev.converge.provisioning.mail.WelcomeEmail;
import dev.converge.token.TokenOperation;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * Sending one of a site's emails (its welcome, its trial's reminder) as the single-use token
 * permits it. The token travels in a header of the message, so the mail provider can be asked
 * later whether a send whose outcome was lost actually went out (when the provider can be asked).
 */
final class SiteMail implements TokenOperation<MailReceipt> {
    private final String name;
    private final BiFunction<String, Runnable, MailReceipt> send;
    private final MailLookup lookup;
    private final Duration abandonedSendWindow;

    private SiteMail(String name, BiFunction<String, Runnable, MailReceipt> send, MailLookup lookup,
            Duration abandonedSendWindow) {
        this.name = name;
        this.send = send;
        this.lookup = lookup;
        this.abandonedSendWindow = abandonedSendWindow;
    }

    static SiteMail welcome(SmtpMailer mailer, MailLookup lookup, String to, String siteId, String siteName,
            String siteUrl) {
        return new SiteMail("send-welcome-email",
                (token, lastCheck) -> mailer.send(new WelcomeEmail(to, siteId, siteName, siteUrl, token), lastCheck),
                lookup, mailer.abandonedSendWindow());
    }

    static SiteMail trialReminder(SmtpMailer mailer, MailLookup lookup, String to, String siteId, String siteName,
            String siteUrl, String deadline, String accountUrl) {
        return new SiteMail("send-trial-reminder", (token, lastCheck) -> mailer.send(
                new TrialReminderEmail(to, siteId, siteName, siteUrl, deadline, accountUrl, token), lastCheck), lookup,
                mailer.abandonedSendWindow());
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public MailReceipt use(String token) {
        return use(token, () -> { });
    }

    @Override
    public MailReceipt use(String token, Runnable lastCheck) {
        return send.apply(token, lastCheck);
    }

    @Override
    public Optional<Boolean> wasUsed(String token) {
        return lookup == null ? Optional.empty() : Optional.of(lookup.accepted(token));
    }

    @Override
    public boolean canTellIfUsed() {
        return lookup != null;
    }

    /** A send stopped before its end of DATA may still complete until the server drops it. */
    @Override
    public Duration abandonedUseWindow() {
        return abandonedSendWindow;
    }
}
