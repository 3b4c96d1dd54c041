package dev.converge.provisioning.mail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A sender that lost the right to send while it was paused mid-message (its lease moved on)
 * learns it at the last moment, before the end of DATA: the unfinished message is never
 * delivered, so it cannot arrive after another sender already sent it.
 */
class SmtpLastCheckTest {

    @Test
    void aFailingLastCheckLeavesTheMessageUndelivered() throws Exception {
        try (LocalSmtp smtp = LocalSmtp.start()) {
            SmtpMailer mailer = new SmtpMailer(smtp.config("welcome@sites.example"));
            WelcomeEmail mail = new WelcomeEmail("ada@example.com", "7", "ada-shop", "https://ada-shop.sites.example", "tok-7");
            assertThatThrownBy(() -> mailer.send(mail, () -> {
                throw new IllegalStateException("lease lost while paused");
            })).hasMessageContaining("lease lost");
            Thread.sleep(300); // give a wrongly completed message time to show up
            assertThat(smtp.received()).isEmpty();

            mailer.send(mail, () -> { });
            assertThat(smtp.awaitMessages(1, Duration.ofSeconds(5))).isTrue();
            assertThat(smtp.received()).extracting(LocalSmtp.ReceivedMail::sendToken).containsExactly("tok-7");
        }
    }
}
