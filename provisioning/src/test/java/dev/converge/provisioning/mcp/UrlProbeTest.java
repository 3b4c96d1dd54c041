package dev.converge.provisioning.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.converge.provisioning.InvalidField;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** check_url contacts only the service's own sites (and loopback when allowed), once, within its bound. */
class UrlProbeTest {
    private final UrlProbe strict = new UrlProbe("sites.example", false, Duration.ofSeconds(2));

    @Test
    void refusesHostsThatAreNotOurSites() {
        for (String url : new String[] {"https://example.com/", "http://169.254.169.254/latest/meta-data",
                "http://127.0.0.1:8080/", "http://localhost/", "https://sites.example.evil.com/"}) {
            assertThatThrownBy(() -> strict.check(url)).as(url).isInstanceOfSatisfying(ToolRefusal.class,
                    r -> assertThat(r.code()).isEqualTo("url_not_allowed"));
        }
    }

    @Test
    void refusesWhatIsNotAnHttpUrl() {
        for (String url : new String[] {"ftp://ada.sites.example/", "file:///etc/passwd", "not a url", "https:///x",
                "https://user:pw@ada.sites.example/"}) {
            assertThatThrownBy(() -> strict.check(url)).as(url).isInstanceOfSatisfying(InvalidField.class,
                    f -> assertThat(f.field()).isEqualTo("url"));
        }
    }

    @Test
    void anOwnSiteThatDoesNotResolveIsReportedUnreachable() {
        Map<String, Object> r = strict.check("https://no-such-site-" + System.nanoTime() + ".sites.example/");
        assertThat(r).containsEntry("reachable", false);
        assertThat((String) r.get("detail")).contains("does not resolve");
    }

    @Test
    void privateAddressesAreNotPublic() throws Exception {
        for (String ip : new String[] {"10.0.0.1", "192.168.1.1", "172.16.0.1", "169.254.169.254", "127.0.0.1", "0.0.0.0",
                "100.64.0.1", "::1", "fe80::1", "fd00::1"}) {
            assertThat(UrlProbe.isPublic(InetAddress.getByName(ip))).as(ip).isFalse();
        }
        assertThat(UrlProbe.isPublic(InetAddress.getByName("93.184.216.34"))).isTrue();
    }

    @Test
    void withLoopbackAllowedItAsksOnceWithHeadAndReportsRedirectsWithoutFollowingThem() throws Exception {
        AtomicInteger heads = new AtomicInteger();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", ex -> {
            if (ex.getRequestMethod().equals("HEAD")) {
                heads.incrementAndGet();
            }
            ex.getResponseHeaders().add("Location", "https://elsewhere.example/");
            ex.sendResponseHeaders(302, -1);
            ex.close();
        });
        server.start();
        try {
            UrlProbe local = new UrlProbe("sites.example", true, Duration.ofSeconds(2));
            Map<String, Object> r = local.check("http://127.0.0.1:" + server.getAddress().getPort() + "/");
            assertThat(r).containsEntry("reachable", true).containsEntry("status", 302)
                    .containsEntry("redirects_to", "https://elsewhere.example/");
            assertThat(heads).hasValue(1);
            assertThatThrownBy(() -> local.check("http://10.1.2.3/")).isInstanceOf(ToolRefusal.class);
        } finally {
            server.stop(0);
        }
    }
}
