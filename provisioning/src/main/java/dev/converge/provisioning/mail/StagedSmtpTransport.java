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
    private final Runnable beforeEndOfData;

    /**
     * @param beforeEndOfData runs just before the end of DATA is written, the point after which
     *                        the server may accept the message; if it throws, the message is never
     *                        completed and the server discards it
     */
    StagedSmtpTransport(Session session, URLName url, Runnable beforeEndOfData) {
        super(session, url);
        this.beforeEndOfData = beforeEndOfData;
    }

    Stage stage() {
        return stage;
    }

    private volatile OutputStream dataStream;

    @Override
    protected OutputStream data() throws MessagingException {
        OutputStream out = super.data();
        dataStream = out;
        stage = Stage.DATA_ACCEPTED;
        return out;
    }

    @Override
    protected void finishData() throws IOException, MessagingException {
        try {
            beforeEndOfData.run();
        } catch (RuntimeException e) {
            // drop the connection at once: the server discards the unfinished message, and we do not
            // wait out a read timeout for a QUIT it would take as part of the message body
            OutputStream out = dataStream;
            if (out != null) {
                try {
                    out.close();
                } catch (IOException ignored) {
                    // already gone
                }
            }
            throw e;
        }
        stage = Stage.END_OF_DATA_SENT;
        super.finishData();
    }
}
