package dev.converge.provisioning.mail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A one-connection SMTP server that misbehaves on cue, for the failures GreenMail will not
 * produce: a refused recipient, a refused message, and a connection dropped right after the end
 * of DATA arrived (the message may or may not have been queued).
 */
final class ScriptedSmtpServer implements AutoCloseable {
    enum Script { REJECT_RECIPIENT, REJECT_MESSAGE_TRANSIENTLY, DROP_AFTER_END_OF_DATA, DROP_DURING_ENVELOPE }

    private final ServerSocket socket;
    private final Thread thread;
    final AtomicInteger messagesCompleted = new AtomicInteger();

    ScriptedSmtpServer(Script script) throws IOException {
        socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        thread = new Thread(() -> serve(script), "scripted-smtp");
        thread.setDaemon(true);
        thread.start();
    }

    int port() {
        return socket.getLocalPort();
    }

    private void serve(Script script) {
        try (Socket client = socket.accept()) {
            BufferedReader in = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.US_ASCII));
            OutputStream out = client.getOutputStream();
            say(out, "220 scripted ESMTP");
            for (String line; (line = in.readLine()) != null; ) {
                String command = line.toUpperCase();
                if (command.startsWith("EHLO") || command.startsWith("HELO")) {
                    say(out, "250 scripted");
                } else if (command.startsWith("MAIL FROM")) {
                    if (script == Script.DROP_DURING_ENVELOPE) {
                        return;
                    }
                    say(out, "250 OK");
                } else if (command.startsWith("RCPT TO")) {
                    say(out, script == Script.REJECT_RECIPIENT ? "550 5.1.1 no such user" : "250 OK");
                } else if (command.startsWith("DATA")) {
                    say(out, "354 go ahead");
                    while (!".".equals(line = in.readLine()) && line != null) {
                        // the message body
                    }
                    messagesCompleted.incrementAndGet();
                    if (script == Script.DROP_AFTER_END_OF_DATA) {
                        client.setSoLinger(true, 0);
                        return;
                    }
                    say(out, "451 4.3.0 try again later");
                } else if (command.startsWith("QUIT")) {
                    say(out, "221 bye");
                    return;
                } else {
                    say(out, "250 OK");
                }
            }
        } catch (IOException e) {
            // the client went away: nothing to do
        }
    }

    private static void say(OutputStream out, String line) throws IOException {
        out.write((line + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
