package dev.converge.provisioning.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.converge.provisioning.validation.InvalidField;
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
        assertThat((String) r.get("detail")).contains("no public address");
    }

    @Test
    void aSiteResolvingToAPrivateAddressGetsTheSameAnswerAsOneThatDoesNotResolve() {
        UrlProbe p = new UrlProbe("sites.example", false, Duration.ofSeconds(2),
                host -> new InetAddress[] {InetAddress.getByName("93.184.216.34"), InetAddress.getByName("10.9.8.7")});
        Map<String, Object> inside = p.check("https://inside.sites.example/");
        Map<String, Object> nowhere = new UrlProbe("sites.example", false, Duration.ofSeconds(2), host -> {
            throw new java.net.UnknownHostException(host);
        }).check("https://nowhere.sites.example/");
        assertThat(inside).containsEntry("reachable", false);
        assertThat(inside.get("detail")).isEqualTo(nowhere.get("detail"));
        assertThat(inside.toString()).doesNotContain("10.9.8.7").doesNotContain("private");
    }

    @Test
    void onlyPorts80And443OfOurSites() {
        for (String url : new String[] {"https://ada.sites.example:8443/", "http://ada.sites.example:22/",
                "http://ada.sites.example:6379/"}) {
            assertThatThrownBy(() -> strict.check(url)).as(url).isInstanceOfSatisfying(ToolRefusal.class,
                    r -> assertThat(r.code()).isEqualTo("url_not_allowed"));
        }
    }

    @Test
    void everySpecialPurposeBlockIsRefused() throws Exception {
        for (String ip : new String[] {"192.0.0.1", "192.0.0.255", "198.18.0.1", "198.19.255.254", "240.0.0.1",
                "250.1.2.3", "255.255.255.255", "192.0.2.1", "198.51.100.7", "203.0.113.9", "224.0.0.1", "192.88.99.1",
                "64:ff9b::a00:1", "64:ff9b::808:808", "64:ff9b:1::1", "2002:a00:1::1", "2002:808:808::1", "::a00:1",
                "::808:808", "2001::1", "2001:db8::1", "100::1", "fec0::1", "ff02::1", "3fff::1", "::", "::1"}) {
            assertThat(UrlProbe.isPublic(InetAddress.getByName(ip))).as(ip).isFalse();
        }
        // a mapped address the platform keeps as v6 (Inet6Address.getByAddress does not convert it)
        byte[] mapped = new byte[16];
        mapped[10] = (byte) 0xff;
        mapped[11] = (byte) 0xff;
        mapped[12] = 8;
        mapped[13] = 8;
        mapped[14] = 8;
        mapped[15] = 8;
        assertThat(UrlProbe.isPublic(java.net.Inet6Address.getByAddress(null, mapped, null))).isFalse();
        for (String ip : new String[] {"93.184.216.34", "1.1.1.1", "8.8.8.8", "2606:4700:4700::1111", "2a00:1450::1"}) {
            assertThat(UrlProbe.isPublic(InetAddress.getByName(ip))).as(ip).isTrue();
        }
    }

    @Test
    void itConnectsToTheAddressItVettedWithTheOriginalNameAsHostAndResolvesOnce() throws Exception {
        AtomicInteger lookups = new AtomicInteger();
        java.util.List<String> hosts = new java.util.concurrent.CopyOnWriteArrayList<>();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", ex -> {
            hosts.add(ex.getRequestHeaders().getFirst("Host"));
            ex.sendResponseHeaders(204, -1);
            ex.close();
        });
        server.start();
        try {
            // the first answer is the vetted one; any later lookup would be sent somewhere we never checked
            UrlProbe p = new UrlProbe("sites.example", true, Duration.ofSeconds(2), host -> lookups.incrementAndGet() == 1
                    ? new InetAddress[] {InetAddress.getLoopbackAddress()} : new InetAddress[] {InetAddress.getByName("10.0.0.1")});
            int port = server.getAddress().getPort();
            Map<String, Object> r = p.check("http://localhost:" + port + "/health");
            assertThat(r).containsEntry("reachable", true).containsEntry("status", 204);
            assertThat(lookups).hasValue(1);
            assertThat(hosts).containsExactly("localhost:" + port);
        } finally {
            server.stop(0);
        }
    }

    @Test
    void lookupsRunOnABoundedExecutorOfTheirOwn() throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        UrlProbe p = new UrlProbe("sites.example", false, Duration.ofSeconds(5), host -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new java.net.UnknownHostException(host);
        });
        java.util.concurrent.ExecutorService callers = java.util.concurrent.Executors.newFixedThreadPool(24);
        try {
            java.util.List<java.util.concurrent.Future<Map<String, Object>>> all = new java.util.ArrayList<>();
            for (int i = 0; i < 24; i++) {
                int n = i;
                all.add(callers.submit(() -> p.check("https://s" + n + ".sites.example/")));
            }
            Thread.sleep(500);
            release.countDown();
            long busy = 0;
            for (var f : all) {
                if (String.valueOf(f.get().get("detail")).contains("too many checks")) {
                    busy++;
                }
            }
            assertThat(busy).as("4 running and 16 queued at most; the rest refused at once").isGreaterThanOrEqualTo(4);
        } finally {
            callers.shutdownNow();
        }
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
