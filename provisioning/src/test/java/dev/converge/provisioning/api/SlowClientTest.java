package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A slow client cannot take the server's connections: one that trickles a request (a header line
 * every 200 ms, so the idle timeout never fires) is closed once the request deadline passes, and one
 * address holds at most its share of the connections, so a client at another address is still
 * served while the attack lasts. The attacker binds 127.0.0.2, a second loopback address.
 */
class SlowClientTest {

    @Test
    void aRequestThatTricklesInIsClosedAtTheRequestDeadline() throws Exception {
        try (ApiHarness api = new ApiHarness(Duration.ofDays(14), ApiOptions.defaults()
                .withJetty(50, 50, Duration.ofSeconds(30)).withConnectionBounds(50, Duration.ofSeconds(1)));
                Socket slow = connect("127.0.0.2", api.server.port());
                Trickle trickle = new Trickle()) {
            startTrickling(trickle, List.of(slow));
            slow.setSoTimeout(15_000);
            long t0 = System.nanoTime();
            assertThat(drain(slow.getInputStream())).as("the server closed the trickling connection").isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("within about twice the deadline")
                    .isLessThan(Duration.ofSeconds(5));
        }
    }

    @Test
    void aKeepAliveConnectionIdleBetweenRequestsOutlivesTheDeadline() throws Exception {
        try (ApiHarness api = new ApiHarness(Duration.ofDays(14), ApiOptions.defaults()
                .withJetty(50, 50, Duration.ofSeconds(30)).withConnectionBounds(50, Duration.ofMillis(500)));
                Socket client = connect("127.0.0.1", api.server.port())) {
            client.setSoTimeout(5_000);
            String request = "GET " + OpsRoutes.HEALTH + " HTTP/1.1\r\nHost: localhost\r\n\r\n";
            for (int i = 0; i < 3; i++) {
                write(client, request);
                assertThat(statusLine(client.getInputStream())).as("request %d on one connection", i).startsWith("HTTP/1.1 200");
                skipResponse(client.getInputStream());
                Thread.sleep(1_600);
            }
        }
    }

    @Test
    void oneAddressCannotHoldEveryConnection() throws Exception {
        // 20 connections, 25% per address: the attacker's 25 sockets get 5 of them
        List<Socket> attack = new ArrayList<>();
        try (ApiHarness api = new ApiHarness(Duration.ofDays(14), ApiOptions.defaults()
                .withJetty(20, 50, Duration.ofSeconds(30)).withConnectionBounds(25, Duration.ofSeconds(30)));
                Trickle trickle = new Trickle()) {
            int port = api.server.port();
            for (int i = 0; i < 25; i++) {
                attack.add(connect("127.0.0.2", port));
            }
            startTrickling(trickle, attack);
            Thread.sleep(500);
            int served = 0;
            for (int i = 0; i < 8; i++) {
                try (Socket legit = connect("127.0.0.1", port)) {
                    legit.setSoTimeout(3_000);
                    OutputStream out = legit.getOutputStream();
                    out.write(("GET " + OpsRoutes.HEALTH + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    String status = statusLine(legit.getInputStream());
                    if (status.startsWith("HTTP/1.1 200")) {
                        served++;
                    }
                } catch (IOException notServed) {
                    // counted as not served
                }
            }
            assertThat(served).as("health checks served from another address during the attack").isEqualTo(8);
        } finally {
            for (Socket s : attack) {
                s.close();
            }
        }
    }

    private static Socket connect(String from, int port) throws IOException {
        Socket s = new Socket();
        s.bind(new InetSocketAddress(from, 0));
        s.connect(new InetSocketAddress("127.0.0.1", port), 3_000);
        return s;
    }

    /** Sends a request line, then one header line every 200 ms on each socket, never the blank line. */
    private static void startTrickling(Trickle trickle, List<Socket> sockets) {
        for (Socket s : sockets) {
            write(s, "GET " + OpsRoutes.HEALTH + " HTTP/1.1\r\nHost: localhost\r\n");
        }
        trickle.timer.scheduleAtFixedRate(() -> {
            for (Socket s : sockets) {
                write(s, "X-Slow: 1\r\n");
            }
        }, 200, 200, TimeUnit.MILLISECONDS);
    }

    private static void write(Socket s, String text) {
        try {
            OutputStream out = s.getOutputStream();
            out.write(text.getBytes(StandardCharsets.US_ASCII));
            out.flush();
        } catch (IOException closed) {
            // the server closed it: what the bound is for
        }
    }

    /** True once the peer closed (end of stream or reset), reading whatever it sent first. */
    private static boolean drain(InputStream in) {
        try {
            while (in.read() != -1) {
                // a 4xx the server may send before closing
            }
            return true;
        } catch (java.net.SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    /** Reads the rest of a response with a Content-Length, so the next one can be read. */
    private static void skipResponse(InputStream in) throws IOException {
        int length = 0;
        String line;
        while (!(line = statusLine(in)).isEmpty()) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        in.readNBytes(length);
    }

    private static String statusLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int ch;
        while ((ch = in.read()) != -1 && ch != '\n') {
            line.append((char) ch);
        }
        return line.toString().trim();
    }

    /** The attacker's clock, stopped when a test ends. */
    private static final class Trickle implements AutoCloseable {
        final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

        @Override
        public void close() {
            timer.shutdownNow();
        }
    }
}
