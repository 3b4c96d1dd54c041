package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Meter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * No label of the request metrics is taken verbatim from a request: 300 requests with made-up
 * methods, no token needed, add one series ({@code method="other"}), not 300, and the method a
 * client invents never shows up on {@code /metrics}.
 */
class HttpMetricLabelsTest {
    private static final Set<String> METHODS = Set.of("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS",
            "TRACE", "CONNECT", "other");

    @Test
    void madeUpMethodsAreCountedAsOtherAndAddNoSeries() throws Exception {
        try (ApiHarness api = new ApiHarness()) {
            HttpClient http = HttpClient.newHttpClient();
            URI health = URI.create("http://127.0.0.1:" + api.server.port() + "/health");
            http.send(HttpRequest.newBuilder(health).GET().build(), HttpResponse.BodyHandlers.discarding());
            Random random = new Random(29);
            for (int i = 0; i < 300; i++) {
                StringBuilder method = new StringBuilder("X");
                for (int c = 0; c < 40; c++) {
                    method.append((char) ('A' + random.nextInt(26)));
                }
                http.send(HttpRequest.newBuilder(health).method(method.toString(), HttpRequest.BodyPublishers.noBody())
                        .build(), HttpResponse.BodyHandlers.discarding());
            }
            Set<String> methods = new TreeSet<>();
            int series = 0;
            for (Meter m : api.service().meters().find(HttpMetrics.NAME).meters()) {
                methods.add(m.getId().getTag("method"));
                series++;
            }
            assertThat(methods).as("method labels").isSubsetOf(METHODS).contains("other");
            assertThat(series).as("series after 300 made-up methods").isLessThan(10);
            String scraped = api.client.get("/metrics", api.operatorToken()).body();
            assertThat(scraped).doesNotContain("XA").doesNotContain("method=\"X");
        }
    }
}
