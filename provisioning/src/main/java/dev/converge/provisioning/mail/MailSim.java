package dev.converge.provisioning.mail;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.MimeMessage;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A mail server in a process of its own (chaos runs): SMTP on a fixed loopback port, and a small
 * HTTP listing of what it received. It outlives killed workers, so both the checker and the
 * welcome-email step (after a crash between the send and the token spend) can ask the mail
 * server itself whether a message with a send token arrived, instead of trusting our database.
 *
 * <p>Routes: {@code GET /health}; {@code GET /messages} (every message's site id, send token and kind);
 * {@code GET /tokens/{token}} (200 if a message with that send token arrived, 404 if not).
 */
public final class MailSim implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One received message, by the headers the checker counts by. */
    public record Received(String messageId, String siteId, String sendToken, String kind) {
    }

    private final GreenMail greenMail;
    private final HttpServer http;
    private final ExecutorService threads;

    private MailSim(GreenMail greenMail, HttpServer http, ExecutorService threads) {
        this.greenMail = greenMail;
        this.http = http;
        this.threads = threads;
    }

    public static MailSim start(String host, int smtpPort, int httpPort) throws IOException {
        return start(host, smtpPort, httpPort, LocalSmtp.IDLE_TIMEOUT);
    }

    /**
     * As {@link #start(String, int, int)}, with a server that drops a connection on which nothing
     * arrived for {@code idleTimeout} and discards its unfinished message, as every SMTP server does.
     */
    public static MailSim start(String host, int smtpPort, int httpPort, java.time.Duration idleTimeout)
            throws IOException {
        int idleMs = LocalSmtp.idleMillis(idleTimeout);
        GreenMail greenMail = new GreenMail(new ServerSetup(smtpPort, host, ServerSetup.PROTOCOL_SMTP));
        greenMail.start();
        greenMail.getSmtp().setClientSocketTimeout(idleMs);
        try {
            HttpServer http = HttpServer.create(new InetSocketAddress(host, httpPort), 64);
            ExecutorService threads = Executors.newFixedThreadPool(4, r -> {
                Thread t = new Thread(r, "mailsim-http");
                t.setDaemon(true);
                return t;
            });
            MailSim sim = new MailSim(greenMail, http, threads);
            http.createContext("/", sim::handle);
            http.setExecutor(threads);
            http.start();
            return sim;
        } catch (IOException | RuntimeException e) {
            greenMail.stop();
            throw e;
        }
    }

    public int smtpPort() {
        return greenMail.getSmtp().getPort();
    }

    public int httpPort() {
        return http.getAddress().getPort();
    }

    public List<Received> received() {
        List<Received> out = new ArrayList<>();
        for (MimeMessage m : greenMail.getReceivedMessages()) {
            try {
                out.add(new Received(m.getMessageID(), m.getHeader(SmtpMailer.SITE_HEADER, null),
                        m.getHeader(SmtpMailer.TOKEN_HEADER, null), m.getHeader(SmtpMailer.KIND_HEADER, null)));
            } catch (MessagingException e) {
                throw new IllegalStateException("GreenMail holds an unreadable message", e);
            }
        }
        return out;
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            try {
                route(ex);
            } catch (RuntimeException e) {
                send(ex, 500, Map.of("message", String.valueOf(e.getMessage())));
            }
        }
    }

    private void route(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getRawPath();
        if (!"GET".equals(ex.getRequestMethod())) {
            send(ex, 405, Map.of("message", "GET only"));
        } else if (path.equals("/health")) {
            send(ex, 200, Map.of("status", "ok"));
        } else if (path.equals("/messages")) {
            List<Map<String, String>> list = new ArrayList<>();
            for (Received r : received()) {
                Map<String, String> m = new LinkedHashMap<>();
                m.put("message_id", r.messageId());
                m.put("site_id", r.siteId());
                m.put("send_token", r.sendToken());
                m.put("kind", r.kind() == null ? SmtpMailer.WELCOME : r.kind());
                list.add(m);
            }
            send(ex, 200, Map.of("messages", list));
        } else if (path.startsWith("/tokens/")) {
            String token = URLDecoder.decode(path.substring("/tokens/".length()), StandardCharsets.UTF_8);
            boolean arrived = received().stream().anyMatch(r -> token.equals(r.sendToken()));
            send(ex, arrived ? 200 : 404, Map.of("accepted", arrived));
        } else {
            send(ex, 404, Map.of("message", "unknown route"));
        }
    }

    private static void send(HttpExchange ex, int status, Object body) throws IOException {
        byte[] bytes = JSON.writeValueAsBytes(body);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        http.stop(0);
        threads.shutdownNow();
        greenMail.stop();
    }
}
