package dev.converge.proof.check;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.converge.leafsim.inventory.InventorySnapshot;
import dev.converge.ledger.LeafResource;
import dev.converge.provisioning.leaf.PostgresDatabaseLeaf;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Ground truth read from leaves in other processes: the simulated leaves' control API (their own
 * inventories, with every create they ever accepted), the mail server's listing ({@code converge
 * mailsim}) and, when per-site databases are used, the PostgreSQL leaf's {@code pg_database}.
 * Nothing here reads our database.
 */
public final class RemoteTruth implements GroundTruth {
    private static final ObjectMapper JSON = JsonMapper.builder().addModule(new JavaTimeModule())
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
    private final String leafsimUrl;
    private final String mailsimUrl;
    private final PostgresDatabaseLeaf databases;

    /** @param databases the PostgreSQL leaf of per-site databases, or null when none are provisioned */
    public RemoteTruth(String leafsimUrl, String mailsimUrl, PostgresDatabaseLeaf databases) {
        this.leafsimUrl = trim(leafsimUrl);
        this.mailsimUrl = trim(mailsimUrl);
        this.databases = databases;
    }

    @Override
    public InventorySnapshot inventory(String leaf) {
        try {
            return JSON.readValue(get(leafsimUrl + "/_control/inventory/" + leaf), InventorySnapshot.class);
        } catch (IOException e) {
            throw new IllegalStateException("unreadable inventory of " + leaf + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Map<String, Long> welcomeEmailsBySite() {
        return emailsBySite(dev.converge.provisioning.mail.SmtpMailer.WELCOME);
    }

    @Override
    public Map<String, Long> remindersBySite() {
        return emailsBySite(dev.converge.provisioning.mail.SmtpMailer.TRIAL_REMINDER);
    }

    private Map<String, Long> emailsBySite(String kind) {
        Map<String, Long> out = new TreeMap<>();
        try {
            for (JsonNode m : JSON.readTree(get(mailsimUrl + "/messages")).path("messages")) {
                JsonNode site = m.get("site_id");
                if (site != null && !site.isNull()
                        && kind.equals(m.path("kind").asText(dev.converge.provisioning.mail.SmtpMailer.WELCOME))) {
                    out.merge(site.asText(), 1L, Long::sum);
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("unreadable mail listing: " + e.getMessage(), e);
        }
        return out;
    }

    @Override
    public Set<String> databases() {
        if (databases == null) {
            return Set.of();
        }
        return databases.list().stream().map(LeafResource::naturalKey).collect(Collectors.toSet());
    }

    private String get(String url) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).GET().build();
        try {
            HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IllegalStateException(url + " answered " + r.statusCode() + ": " + r.body());
            }
            return r.body();
        } catch (IOException e) {
            throw new IllegalStateException(url + " did not answer: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading " + url, e);
        }
    }

    private static String trim(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
