package dev.converge.provisioning.mail;

import java.time.Instant;

/**
 * Proof that the SMTP server accepted a message (it answered 250 to the end of DATA).
 *
 * @param serverResponse the server's acceptance line, e.g. {@code 250 OK}
 */
public record MailReceipt(String messageId, String to, String serverResponse, Instant acceptedAt) {
}
