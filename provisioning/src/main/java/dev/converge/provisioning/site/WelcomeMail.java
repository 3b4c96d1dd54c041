package dev.converge.provisioning.site;

import dev.converge.provisioning.mail.MailLookup;
import dev.converge.provisioning.mail.MailReceipt;
import dev.converge.provisioning.mail.SmtpMailer;
import dev.converge.provisioning.mail.WelcomeEmail;
import dev.converge.token.TokenOperation;
import java.util.Optional;

/**
 * Sending one site's welcome email, as the single-use token permits it. The token travels in a
 * header of the message, so the mail provider can be asked later whether a send whose outcome
 * was lost actually went out (when the provider can be asked at all).
 */
final class WelcomeMail implements TokenOperation<MailReceipt> {
    private final SmtpMailer mailer;
    private final MailLookup lookup;
    private final String to;
    private final String siteId;
    private final String siteName;
    private final String siteUrl;

    WelcomeMail(SmtpMailer mailer, MailLookup lookup, String to, String siteId, String siteName, String siteUrl) {
        this.mailer = mailer;
        this.lookup = lookup;
        this.to = to;
        this.siteId = siteId;
        this.siteName = siteName;
        this.siteUrl = siteUrl;
    }

    @Override
    public String name() {
        return "send-welcome-email";
    }

    @Override
    public MailReceipt use(String token) {
        return use(token, () -> { });
    }

    @Override
    public MailReceipt use(String token, Runnable lastCheck) {
        return mailer.send(new WelcomeEmail(to, siteId, siteName, siteUrl, token), lastCheck);
    }

    @Override
    public Optional<Boolean> wasUsed(String token) {
        return lookup == null ? Optional.empty() : Optional.of(lookup.accepted(token));
    }

    @Override
    public boolean canTellIfUsed() {
        return lookup != null;
    }
}
