package dev.converge.proof.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class LeafControlTest {

    /**
     * A kept-alive connection the server closes just as the next request goes out (its idle timeout, a busy
     * machine) reaches the client as "header parser received no bytes". The JDK client retries only GET and HEAD
     * on such a connection; clearing the faults is a DELETE, idempotent, and must not end a run on a stale socket.
     */
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void clearingFaultsSurvivesAKeptAliveConnectionClosedUnderIt() throws Exception {
        List<String> served = new CopyOnWriteArrayList<>();
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread t = new Thread(() -> serve(server, served), "stale-connection-server");
            t.setDaemon(true);
            t.start();
            LeafControl control = new LeafControl("http://127.0.0.1:" + server.getLocalPort());

            control.installFaults(1L, List.of());
            control.clearFaults();

            assertThat(served).as("the first connection answered the POST and dropped the DELETE; a second one answered it")
                    .containsExactly("1 POST", "2 DELETE");
        }
    }

    /** Connection 1 answers its first request and closes on the next without a byte; later connections answer. */
    private static void serve(ServerSocket server, List<String> served) {
        int connection = 0;
        while (!server.isClosed()) {
            try (Socket s = server.accept()) {
                connection++;
                BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
                OutputStream out = s.getOutputStream();
                boolean first = true;
                while (true) {
                    String requestLine = in.readLine();
                    if (requestLine == null) {
                        break;
                    }
                    int length = 0;
                    for (String h = in.readLine(); h != null && !h.isEmpty(); h = in.readLine()) {
                        if (h.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                            length = Integer.parseInt(h.substring("content-length:".length()).trim());
                        }
                    }
                    for (int i = 0; i < length; i++) {
                        in.read();
                    }
                    if (connection == 1 && !first) {
                        break; // closed under the request: no status line, no headers
                    }
                    first = false;
                    served.add(connection + " " + requestLine.split(" ")[0]);
                    out.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
                            .getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                }
            } catch (IOException e) {
                return;
            }
        }
    }
}
