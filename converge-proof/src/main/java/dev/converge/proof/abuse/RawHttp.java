package dev.converge.proof.abuse;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * One HTTP/1.1 request over a socket of its own, made from a chosen local address: what an
 * attacker sends (any method, any header), which {@code java.net.http} will not send or bind.
 */
final class RawHttp {
    private RawHttp() {
    }

    /** Opens a connection to the server from {@code from} (null: the system's choice). */
    static Socket connect(String from, URI server, int timeoutMillis) throws IOException {
        Socket s = new Socket();
        try {
            if (from != null) {
                s.bind(new InetSocketAddress(from, 0));
            }
            s.connect(new InetSocketAddress(server.getHost(), port(server)), timeoutMillis);
            s.setSoTimeout(timeoutMillis);
            return s;
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    /** Sends one request and answers its status code, or -1 when the server closed without one. */
    static int status(String from, URI server, String method, String path, String authorization) throws IOException {
        return status(from, server, method, path, authorization, null);
    }

    /** {@link #status} with a JSON body (null for none). */
    static int status(String from, URI server, String method, String path, String authorization, String json)
            throws IOException {
        return exchange(from, server, method, path, authorization, json, null, false).status();
    }

    /** An answer: its status (-1: closed without one) and, when asked for, everything after the status line. */
    record Answer(int status, String rest) {
    }

    /** One request with an optional JSON body and {@code Idempotency-Key}; reads the whole answer if {@code whole}. */
    static Answer exchange(String from, URI server, String method, String path, String authorization, String json,
            String idempotencyKey, boolean whole) throws IOException {
        try (Socket s = connect(from, server, 5_000)) {
            StringBuilder req = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: ")
                    .append(server.getHost()).append("\r\nConnection: close\r\n");
            if (authorization != null) {
                req.append("Authorization: ").append(authorization).append("\r\n");
            }
            if (idempotencyKey != null) {
                req.append("Idempotency-Key: ").append(idempotencyKey).append("\r\n");
            }
            byte[] body = json == null ? new byte[0] : json.getBytes(StandardCharsets.UTF_8);
            if (json != null) {
                req.append("Content-Type: application/json\r\nContent-Length: ").append(body.length).append("\r\n");
            }
            OutputStream out = s.getOutputStream();
            out.write(req.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
            InputStream in = s.getInputStream();
            StringBuilder line = new StringBuilder();
            int ch;
            while ((ch = in.read()) != -1 && ch != '\n') {
                line.append((char) ch);
            }
            String[] parts = line.toString().split(" ");
            int status = parts.length >= 2 && parts[1].matches("\\d{3}") ? Integer.parseInt(parts[1]) : -1;
            return new Answer(status, whole ? new String(in.readAllBytes(), StandardCharsets.UTF_8) : "");
        }
    }

    static int port(URI server) {
        return server.getPort() > 0 ? server.getPort() : "https".equals(server.getScheme()) ? 443 : 80;
    }
}
