package dev.converge.provisioning.leaf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.converge.ledger.AmbiguousOutcome;
import dev.converge.ledger.LeafCallException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A git host's reply names our repository only if its {@code full_name} is exactly our org/name:
 * a repository of the same name in another org (a redirect after a transfer, a proxy's mistake)
 * is never adopted, and a delete goes only to our org.
 */
class GitHostReplyCheckTest {
    private HttpServer server;
    private final AtomicInteger deletes = new AtomicInteger();
    private GitHostDriver driver;

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        String elsewhere = "{\"id\":7,\"name\":\"shop\",\"full_name\":\"someone-else/shop\",\"description\":\"converge:site-1\"}";
        server.createContext("/", ex -> {
            if (ex.getRequestMethod().equals("DELETE")) {
                deletes.incrementAndGet();
            }
            byte[] body = (ex.getRequestURI().getPath().endsWith("/repos") && ex.getRequestMethod().equals("GET")
                    ? "[" + elsewhere + "]" : elsewhere).getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(ex.getRequestMethod().equals("POST") ? 201 : 200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        server.start();
        driver = new GitHostDriver(new GitHostConfig(HttpLeafConfig.of("http://127.0.0.1:" + server.getAddress().getPort(),
                ApiToken.of("t")), "acme", true));
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void aRepositoryOfAnotherOrgIsNeitherCreatedNorFoundNorListedAsOurs() {
        assertThatThrownBy(() -> driver.create("shop", "converge:site-1", null)).isInstanceOf(AmbiguousOutcome.class);
        assertThatThrownBy(() -> driver.find("shop")).isInstanceOf(LeafCallException.class);
        assertThatThrownBy(() -> driver.list()).isInstanceOf(LeafCallException.class);
    }

    @Test
    void aDeleteGoesOnlyToOurOrg() {
        assertThatThrownBy(() -> driver.delete("someone-else/shop")).isInstanceOf(IllegalArgumentException.class);
        assertThat(deletes).hasValue(0);
        driver.delete("acme/shop");
        assertThat(deletes).hasValue(1);
    }
}
