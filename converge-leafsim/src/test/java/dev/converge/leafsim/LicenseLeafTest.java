package dev.converge.leafsim;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.converge.leafsim.inventory.InventorySnapshot;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class LicenseLeafTest {
    static LeafSim sim;
    static SimClient licenses;

    @BeforeAll
    static void start() {
        sim = LeafSim.start(LeafSimConfig.builder().token(LeafSim.LICENSE, "lic-secret").build());
        licenses = new SimClient(sim.leafUrl(LeafSim.LICENSE), "lic-secret");
    }

    @AfterAll
    static void stop() {
        sim.close();
    }

    @Test
    void createsListsByDomainAndDeletes() throws Exception {
        HttpResponse<String> created = licenses.post("/sites", Map.of("name", " site-1 ", "domain", "a.example.com"));
        assertThat(created.statusCode()).isEqualTo(201);
        JsonNode data = SimClient.json(created).get("data");
        String key = data.get("key").asText();
        assertThat(key).matches("[0-9A-F]{4}(-[0-9A-F]{4}){3}");
        assertThat(data.get("name").asText()).as("trimmed like the seed's client").isEqualTo("site-1");
        assertThat(data.get("domains")).as("Statamic's shape: a domains array").hasSize(1);
        assertThat(data.get("domains").get(0).asText()).isEqualTo("a.example.com");

        JsonNode listed = SimClient.json(licenses.get("/sites?domain=a.example.com")).get("data");
        assertThat(listed).hasSize(1);
        assertThat(listed.get(0).get("key").asText()).isEqualTo(key);
        assertThat(SimClient.json(licenses.get("/sites?domain=other.example.com")).get("data")).isEmpty();

        HttpResponse<String> deleted = licenses.delete("/sites/" + key);
        assertThat(deleted.statusCode()).isEqualTo(200);
        assertThat(SimClient.json(deleted).get("message").asText()).isEqualTo("Site [" + key + "] deleted.");
        assertThat(licenses.delete("/sites/" + key).statusCode()).isEqualTo(404);
        assertThat(licenses.get("/sites/" + key).statusCode()).isEqualTo(404);
    }

    @Test
    void creatingTwiceMakesTwoLicenses() throws Exception {
        Map<String, String> body = Map.of("name", "site-2", "domain", "twice.example.com");
        String first = SimClient.json(licenses.post("/sites", body)).get("data").get("key").asText();
        String second = SimClient.json(licenses.post("/sites", body)).get("data").get("key").asText();

        assertThat(first).isNotEqualTo(second);
        assertThat(SimClient.json(licenses.get("/sites?domain=twice.example.com")).get("data")).hasSize(2);
        licenses.delete("/sites/" + second);
        InventorySnapshot inventory = sim.inventory(LeafSim.LICENSE);
        assertThat(inventory.currentOf("twice.example.com")).hasSize(1);
        assertThat(inventory.createsOf("twice.example.com")).as("history survives the delete").isEqualTo(2);
        assertThat(inventory.history()).allSatisfy(e -> assertThat(e.at()).isNotNull());
    }

    @Test
    void anIdempotencyKeyReplaysTheFirstAnswerInsteadOfCreatingAgain() throws Exception {
        Map<String, String> body = Map.of("name", "site-3", "domain", "idem.example.com");
        Map<String, String> key = Map.of("Idempotency-Key", "ledger-row-3");
        HttpResponse<String> first = licenses.post("/sites", body, key);
        HttpResponse<String> replay = licenses.post("/sites", body, key);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(replay.statusCode()).isEqualTo(201);
        assertThat(replay.body()).isEqualTo(first.body());
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(sim.inventory(LeafSim.LICENSE).createsOf("idem.example.com")).isEqualTo(1);
    }

    @Test
    void theSameIdempotencyKeyWithAnotherBodyIsRefused() throws Exception {
        Map<String, String> key = Map.of("Idempotency-Key", "ledger-row-4");
        licenses.post("/sites", Map.of("name", "site-4", "domain", "mismatch.example.com"), key);
        HttpResponse<String> mismatch = licenses.post("/sites",
                Map.of("name", "site-4", "domain", "other.mismatch.example.com"), key);

        assertThat(mismatch.statusCode()).isEqualTo(422);
        assertThat(SimClient.json(mismatch).get("message").asText()).contains("Idempotency-Key");
        assertThat(sim.inventory(LeafSim.LICENSE).createsOf("other.mismatch.example.com")).isZero();
    }

    @Test
    void validatesRequiredFieldsAndTokens() throws Exception {
        assertThat(licenses.post("/sites", Map.of("name", "no-domain")).statusCode()).isEqualTo(422);
        assertThat(new SimClient(sim.leafUrl(LeafSim.LICENSE), null)
                .post("/sites", Map.of("name", "x", "domain", "x.example.com")).statusCode()).isEqualTo(401);
        assertThat(sim.inventory(LeafSim.LICENSE).createsOf("x.example.com")).isZero();
    }
}
