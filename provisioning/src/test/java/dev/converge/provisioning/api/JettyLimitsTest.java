package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The API server's bounds: at {@code --max-connections} it accepts no more connections (a new one
 * waits in the kernel's backlog, unanswered, until one closes); a connection idle for
 * {@code --idle-timeout} is closed; the options are validated.
 */
class JettyLimitsTest {

    @Test
    void aConnectionBeyondTheLimitIsNotServedUntilAnotherCloses() throws IOException {
        try (ApiHarness api = new ApiHarness(Duration.ofDays(14),
                ApiOptions.defaults().withJetty(2, 50, Duration.ofSeconds(30))
                        .withConnectionBounds(100, Duration.ofSeconds(10)))) {
            int port = api.server.port();
            try (Socket a = new Socket("127.0.0.1", port); Socket b = new Socket("127.0.0.1", port)) {
                assertThat(health(a)).as("first connection").startsWith("HTTP/1.1 200");
                assertThat(health(b)).as("second connection").startsWith("HTTP/1.1 200");
                try (Socket c = new Socket("127.0.0.1", port)) {
                    c.setSoTimeout(1500);
                    assertThatThrownBy(() -> health(c)).as("the third, beyond the limit, waits unanswered")
                            .isInstanceOf(SocketTimeoutException.class);
                    a.close();
                    c.setSoTimeout(10_000);
                    assertThat(firstLine(c)).as("served once a slot is free").startsWith("HTTP/1.1 200");
                }
            }
        }
    }

    @Test
    void aConnectionThatSendsNothingIsClosedAfterTheIdleTimeout() throws IOException {
        try (ApiHarness api = new ApiHarness(Duration.ofDays(14),
                ApiOptions.defaults().withJetty(10, 50, Duration.ofMillis(500)))) {
            try (Socket idle = new Socket("127.0.0.1", api.server.port())) {
                idle.setSoTimeout(10_000);
                long t0 = System.nanoTime();
                assertThat(idle.getInputStream().read()).as("closed by the server").isEqualTo(-1);
                assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(8));
            }
        }
    }

    @Test
    void theLimitsAreValidated() {
        ApiOptions d = ApiOptions.defaults();
        assertThat(d.maxConnections()).isEqualTo(2_000);
        assertThat(d.requestQueue()).isEqualTo(2_000);
        assertThat(d.idleTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThatThrownBy(() -> d.withJetty(0, 10, Duration.ofSeconds(1))).hasMessageContaining("--max-connections");
        assertThatThrownBy(() -> d.withJetty(10, 0, Duration.ofSeconds(1))).hasMessageContaining("--request-queue");
        assertThatThrownBy(() -> d.withJetty(10, 10, Duration.ofMillis(10))).hasMessageContaining("--idle-timeout");
        assertThatThrownBy(() -> d.withJetty(10, 10, Duration.ofHours(2))).hasMessageContaining("--idle-timeout");
        assertThatThrownBy(() -> d.withJetty(10, 10, null)).hasMessageContaining("--idle-timeout");
        assertThat(d.addressShare()).isEqualTo(10);
        assertThat(d.connectionsPerAddress()).isEqualTo(200);
        assertThat(d.withJetty(5, 10, Duration.ofSeconds(1)).connectionsPerAddress()).as("at least one").isEqualTo(1);
        assertThat(d.requestDeadline()).isEqualTo(Duration.ofSeconds(10));
        assertThatThrownBy(() -> d.withConnectionBounds(0, Duration.ofSeconds(1))).hasMessageContaining("--address-share");
        assertThatThrownBy(() -> d.withConnectionBounds(101, Duration.ofSeconds(1))).hasMessageContaining("--address-share");
        assertThatThrownBy(() -> d.withConnectionBounds(10, Duration.ofMillis(10))).hasMessageContaining("--request-deadline");
        assertThatThrownBy(() -> d.withConnectionBounds(10, null)).hasMessageContaining("--request-deadline");
    }

    private static String health(Socket s) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(("GET " + OpsRoutes.HEALTH + " HTTP/1.1\r\nHost: localhost\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return firstLine(s);
    }

    private static String firstLine(Socket s) throws IOException {
        // one status line is all we read: a fresh reader per call is fine for a line this short
        StringBuilder line = new StringBuilder();
        var in = s.getInputStream();
        int ch;
        while ((ch = in.read()) != -1 && ch != '\n') {
            line.append((char) ch);
        }
        return line.toString().trim();
    }
}
