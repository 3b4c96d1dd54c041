package dev.converge.provisioning.mail;

import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.URLName;
import java.io.IOException;
import java.io.OutputStream;
import org.eclipse.angus.mail.smtp.SMTPTransport;

/**
 * An SMTP transport that remembers how far a send got. Once the end of DATA is being written, a
 * dropped connection no longer means "not sent": the server may have queued the message. Only
 * this transport can tell the two apart, because Angus reports both as a failed send.
 */
final class StagedSmtpTransport extends SMTPTransport {
    enum Stage { ENVELOPE, DATA_ACCEPTED, END_OF_DATA_SENT }

    private volatile Stage stage = Stage.ENVELOPE;

    StagedSmtpTransport(Session session, URLName url) {
        super(session, url);
    }

    Stage stage() {
        return stage;
    }

    @Override
    protected OutputStream data() throws MessagingException {
        OutputStream out = super.data();
        stage = Stage.DATA_ACCEPTED;
        return out;
    }

    @Override
    protected void finishData() throws IOException, MessagingException {
        stage = Stage.END_OF_DATA_SENT;
        super.finishData();
    }
}
