package dev.converge.provisioning.mail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.ledger.AmbiguousOutcome;
import dev.converge.ledger.LeafRejected;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class SmtpMailerTest {
    static LocalSmtp smtp;

    @BeforeAll
    static void start() {
        smtp = LocalSmtp.start();
    }

    @AfterAll
    static void stop() {
        smtp.close();
    }

    @Test
    void anAcceptedMailGivesAReceiptAndArrivesWithOurHeaders() {
        SmtpMailer mailer = new SmtpMailer(smtp.config("welcome@converge.test"));
        MailReceipt receipt = mailer.send(welcome("site-41", "tok-41"));

        assertThat(receipt.messageId()).isEqualTo("<welcome.site-41.tok-41@converge>");
        assertThat(receipt.serverResponse()).startsWith("250");
        assertThat(smtp.awaitMessages(1, Duration.ofSeconds(5))).isTrue();
        assertThat(smtp.received()).filteredOn(mail -> "site-41".equals(mail.siteId())).singleElement()
                .satisfies(mail -> {
                    assertThat(mail.messageId()).isEqualTo(receipt.messageId());
                    assertThat(mail.sendToken()).isEqualTo("tok-41");
                    assertThat(mail.to()).containsExactly("owner@example.com");
                    assertThat(mail.subject()).isEqualTo("Welcome to Shop 41");
                });
    }

    @Test
    void eachSendIsOneMailSoTheMailboxCountsRepeats() {
        SmtpMailer mailer = new SmtpMailer(smtp.config("welcome@converge.test"));
        mailer.send(welcome("site-7", "tok-a"));
        mailer.send(welcome("site-7", "tok-b"));

        assertThat(smtp.countForSite("site-7")).isEqualTo(2);
        assertThat(smtp.countForSite("site-8")).isZero();
    }

    @Test
    void aRefusedRecipientIsAPermanentRejection() throws Exception {
        try (ScriptedSmtpServer server = new ScriptedSmtpServer(ScriptedSmtpServer.Script.REJECT_RECIPIENT)) {
            assertThatThrownBy(() -> mailerFor(server).send(welcome("site-1", "tok-1")))
                    .isInstanceOfSatisfying(LeafRejected.class, rejected -> {
                        assertThat(rejected.status()).isEqualTo(550);
                        assertThat(rejected.isTransient()).isFalse();
                    });
            assertThat(server.messagesCompleted).hasValue(0);
        }
    }

    @Test
    void aTemporaryRefusalAfterDataIsATransientRejection() throws Exception {
        try (ScriptedSmtpServer server = new ScriptedSmtpServer(ScriptedSmtpServer.Script.REJECT_MESSAGE_TRANSIENTLY)) {
            assertThatThrownBy(() -> mailerFor(server).send(welcome("site-2", "tok-2")))
                    .isInstanceOfSatisfying(LeafRejected.class, rejected -> {
                        assertThat(rejected.status()).isEqualTo(451);
                        assertThat(rejected.isTransient()).isTrue();
                    });
        }
    }

    @Test
    void aConnectionLostAfterTheEndOfDataIsAmbiguous() throws Exception {
        try (ScriptedSmtpServer server = new ScriptedSmtpServer(ScriptedSmtpServer.Script.DROP_AFTER_END_OF_DATA)) {
            assertThatThrownBy(() -> mailerFor(server).send(welcome("site-3", "tok-3")))
                    .isInstanceOf(AmbiguousOutcome.class);
            assertThat(server.messagesCompleted).as("the server did receive the whole message").hasValue(1);
        }
    }

    @Test
    void aConnectionLostDuringTheEnvelopeIsATransientRejection() throws Exception {
        try (ScriptedSmtpServer server = new ScriptedSmtpServer(ScriptedSmtpServer.Script.DROP_DURING_ENVELOPE)) {
            assertThatThrownBy(() -> mailerFor(server).send(welcome("site-4", "tok-4")))
                    .isInstanceOfSatisfying(LeafRejected.class, rejected -> assertThat(rejected.isTransient()).isTrue());
            assertThat(server.messagesCompleted).hasValue(0);
        }
    }

    /**
     * The port is held by a socket that is bound but does not listen: a connection to it is refused,
     * and no other server (another test's, started meanwhile) can take it, as it could a port that
     * was merely closed.
     */
    @Test
    void noServerListeningIsATransientRejection() throws Exception {
        try (java.net.Socket holder = new java.net.Socket()) {
            holder.bind(new java.net.InetSocketAddress("127.0.0.1", 0));
            SmtpMailer mailer = new SmtpMailer(SmtpConfig.of("127.0.0.1", holder.getLocalPort(), "welcome@converge.test"));
            assertThatThrownBy(() -> mailer.send(welcome("site-5", "tok-5")))
                    .isInstanceOfSatisfying(LeafRejected.class, rejected -> assertThat(rejected.isTransient()).isTrue());
        }
    }

    @Test
    void headerValuesAreValidatedSoTheyCannotInjectHeaders() {
        assertThatThrownBy(() -> welcome("site-1\r\nBcc: x@evil.test", "tok"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static SmtpMailer mailerFor(ScriptedSmtpServer server) {
        return new SmtpMailer(new SmtpConfig("127.0.0.1", server.port(), "welcome@converge.test",
                Duration.ofSeconds(2), Duration.ofSeconds(3), null));
    }

    private static WelcomeEmail welcome(String siteId, String token) {
        return new WelcomeEmail("owner@example.com", siteId, "Shop " + siteId.replace("site-", ""),
                "https://" + siteId + ".example.com", token);
    }
}
