package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.provisioning.access.Credentials;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Requests that fail authentication are limited per client address before they reach the
 * database: after {@link AuthFailures#DEFAULT_PER_MINUTE} failures a minute an address is answered
 * 429 with {@code Retry-After} and no token lookup, while a client at another address is served as
 * before. A made-up token of the right shape is looked up once and then remembered. The attacker
 * binds 127.0.0.2, a second loopback address.
 */
class FailedAuthLimitTest {
    private static final SecureRandom RANDOM = new SecureRandom();

    @Test
    void aFloodOfMadeUpTokensIsRefusedWithoutLookupsOnceItsAddressHasFailedEnough() throws IOException {
        try (ApiHarness api = new ApiHarness()) {
            int port = api.server.port();
            String good = api.tenant().token();
            Credentials credentials = api.service().tenants().credentials();
            int unauthorized = 0;
            int limited = 0;
            String retryAfter = null;
            long before = credentials.lookups();
            for (int i = 0; i < 200; i++) {
                Response r = get("127.0.0.2", port, SiteRoutes.COLLECTION, "Bearer " + madeUpToken());
                if (r.status == 401) {
                    unauthorized++;
                } else if (r.status == 429) {
                    limited++;
                    retryAfter = r.headers.get("retry-after");
                    assertThat(r.body).contains("rate-limited").doesNotContain("cvt_");
                }
            }
            long lookups = credentials.lookups() - before;
            assertThat(unauthorized).as("401s before the limit").isEqualTo(AuthFailures.DEFAULT_PER_MINUTE);
            assertThat(limited).as("then 429s").isEqualTo(200 - AuthFailures.DEFAULT_PER_MINUTE);
            assertThat(retryAfter).as("Retry-After").isNotNull().matches("[1-9][0-9]*");
            assertThat(lookups).as("token lookups for 200 made-up tokens").isEqualTo(AuthFailures.DEFAULT_PER_MINUTE);

            assertThat(get("127.0.0.1", port, SiteRoutes.COLLECTION, "Bearer " + good).status)
                    .as("a client at another address, during the flood").isEqualTo(200);
            assertThat(get("127.0.0.1", port, SiteRoutes.COLLECTION, "Bearer " + madeUpToken()).status)
                    .as("another address's first failure is its own").isEqualTo(401);
        }
    }

    @Test
    void theSameUnknownTokenIsLookedUpOnce() throws IOException {
        try (ApiHarness api = new ApiHarness()) {
            Credentials credentials = api.service().tenants().credentials();
            String token = madeUpToken();
            long before = credentials.lookups();
            for (int i = 0; i < 10; i++) {
                assertThat(get("127.0.0.3", api.server.port(), SiteRoutes.COLLECTION, "Bearer " + token).status).isEqualTo(401);
            }
            assertThat(credentials.lookups() - before).isEqualTo(1);
        }
    }

    @Test
    void theMcpEndpointIsLimitedTheSameWay() throws IOException {
        try (ApiHarness api = new ApiHarness(java.time.Duration.ofDays(14), ApiOptions.defaults(),
                dev.converge.provisioning.extensions.StandardExtensions.all())) {
            int port = api.server.port();
            Response last = null;
            for (int i = 0; i <= AuthFailures.DEFAULT_PER_MINUTE; i++) {
                last = get("127.0.0.4", port, "/mcp", "Bearer " + madeUpToken());
            }
            assertThat(last.status).isEqualTo(429);
            assertThat(last.headers).containsKey("retry-after");
            assertThat(last.headers).doesNotContainKey("www-authenticate");
        }
    }

    @Test
    void theDashboardsLoginIsLimitedTheSameWay() throws IOException {
        try (ApiHarness api = new ApiHarness(java.time.Duration.ofDays(14), ApiOptions.defaults(),
                List.of(new OperatorDashboard()))) {
            int port = api.server.port();
            Credentials credentials = api.service().tenants().credentials();
            long before = credentials.lookups();
            int unauthorized = 0;
            int limited = 0;
            for (int i = 0; i < 60; i++) {
                String token = "cvo_" + madeUpToken().substring(4);
                Response r = post("127.0.0.5", port, OperatorDashboard.PATH + "/session", "{\"token\":\"" + token + "\"}");
                if (r.status == 401) {
                    unauthorized++;
                } else if (r.status == 429) {
                    limited++;
                }
            }
            assertThat(unauthorized).as("401s before the limit").isEqualTo(AuthFailures.DEFAULT_PER_MINUTE);
            assertThat(limited).as("then 429s").isEqualTo(60 - AuthFailures.DEFAULT_PER_MINUTE);
            assertThat(credentials.lookups() - before).as("lookups").isEqualTo(AuthFailures.DEFAULT_PER_MINUTE);
            String operator = api.operatorToken();
            assertThat(post("127.0.0.1", port, OperatorDashboard.PATH + "/session", "{\"token\":\"" + operator + "\"}").status)
                    .as("an operator at another address logs in during the flood").isEqualTo(200);
        }
    }

    static String madeUpToken() {
        byte[] raw = new byte[32];
        RANDOM.nextBytes(raw);
        return "cvt_" + Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    }

    record Response(int status, Map<String, String> headers, String body) {
    }

    /** One JSON POST over a connection made from {@code from}, closed after the response. */
    static Response post(String from, int port, String path, String json) throws IOException {
        return exchange(from, port, "POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + json.getBytes(StandardCharsets.UTF_8).length + "\r\nConnection: close\r\n\r\n" + json);
    }

    /** One GET over a connection made from {@code from}, closed after the response. */
    static Response get(String from, int port, String path, String authorization) throws IOException {
        return exchange(from, port, "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nAccept: application/json, text/event-stream\r\n"
                + "Authorization: " + authorization + "\r\nConnection: close\r\n\r\n");
    }

    private static Response exchange(String from, int port, String request) throws IOException {
        try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress(from, 0));
            s.connect(new InetSocketAddress("127.0.0.1", port), 3_000);
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = s.getInputStream();
            String all = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int end = all.indexOf("\r\n\r\n");
            String[] lines = all.substring(0, end).split("\r\n");
            Map<String, String> headers = new LinkedHashMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
            }
            return new Response(Integer.parseInt(lines[0].split(" ")[1]), headers, all.substring(end + 4));
        }
    }
}
