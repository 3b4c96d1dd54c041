package dev.converge.provisioning.mail;

/**
 * Asks the mail provider whether a message carrying a send token was accepted: how a welcome email
 * whose sender died mid-send is settled (sent, or not) instead of being sent again.
 */
@FunctionalInterface
public interface MailLookup {
    boolean accepted(String sendToken);
}
