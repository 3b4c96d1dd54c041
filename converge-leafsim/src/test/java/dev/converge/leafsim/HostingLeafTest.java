package dev.converge.leafsim;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class HostingLeafTest {
    static LeafSim sim;
    static SimClient forge;

    @BeforeAll
    static void start() {
        sim = LeafSim.start(LeafSimConfig.builder().token(LeafSim.HOSTING, "forge-secret").build());
        forge = new SimClient(sim.leafUrl(LeafSim.HOSTING), "forge-secret");
    }

    @AfterAll
    static void stop() {
        sim.close();
    }

    @Test
    void createsListsGetsDeploysAndDeletesASite() throws Exception {
        HttpResponse<String> created = forge.post("/servers/7/sites", Map.of("domain", "one.example.com",
                "project_type", "php", "directory", "/public", "tags", List.of("converge:site-1")));
        assertThat(created.statusCode()).isEqualTo(200);
        JsonNode site = SimClient.json(created).get("site");
        String id = site.get("id").asText();
        assertThat(site.get("name").asText()).isEqualTo("one.example.com");
        assertThat(site.get("status").asText()).isEqualTo("installed");
        assertThat(site.get("tags").get(0).asText()).isEqualTo("converge:site-1");

        JsonNode listed = SimClient.json(forge.get("/servers/7/sites")).get("sites");
        assertThat(listed.findValuesAsText("name")).contains("one.example.com");
        assertThat(SimClient.json(forge.get("/servers/7/sites/" + id)).get("site").get("id").asText()).isEqualTo(id);
        assertThat(forge.get("/servers/8/sites/" + id).statusCode()).as("a site lives on one server").isEqualTo(404);

        HttpResponse<String> deployed = forge.post("/servers/7/sites/" + id + "/deployment/deploy", Map.of());
        assertThat(deployed.statusCode()).isEqualTo(200);
        assertThat(SimClient.json(deployed).get("site").get("deployment_status").asText()).isEqualTo("deployed");
        forge.post("/servers/7/sites/" + id + "/deployment/deploy", Map.of());
        assertThat(SimClient.json(forge.get("/servers/7/sites/" + id)).get("site").get("deployments").asInt()).isEqualTo(2);

        assertThat(forge.delete("/servers/7/sites/" + id).statusCode()).isEqualTo(200);
        assertThat(forge.delete("/servers/7/sites/" + id).statusCode()).isEqualTo(404);
        assertThat(forge.post("/servers/7/sites/" + id + "/deployment/deploy", Map.of()).statusCode()).isEqualTo(404);
        assertThat(sim.inventory(LeafSim.HOSTING).currentOf("one.example.com")).isEmpty();
        assertThat(sim.inventory(LeafSim.HOSTING).createsOf("one.example.com")).isEqualTo(1);
    }

    @Test
    void aDomainTakenOnTheServerIsA422() throws Exception {
        assertThat(forge.post("/servers/9/sites", Map.of("domain", "taken.example.com")).statusCode()).isEqualTo(200);
        HttpResponse<String> again = forge.post("/servers/9/sites", Map.of("domain", "taken.example.com"));

        assertThat(again.statusCode()).isEqualTo(422);
        assertThat(SimClient.json(again).get("errors").get("domain").get(0).asText())
                .isEqualTo("The domain has already been taken.");
        assertThat(sim.inventory(LeafSim.HOSTING).createsOf("taken.example.com")).isEqualTo(1);
    }

    @Test
    void refusesMissingTokensAndInvalidDomains() throws Exception {
        assertThat(new SimClient(sim.leafUrl(LeafSim.HOSTING), null).get("/servers/7/sites").statusCode())
                .isEqualTo(401);
        assertThat(new SimClient(sim.leafUrl(LeafSim.HOSTING), "dev-hosting-token").get("/servers/7/sites")
                .statusCode()).as("the default token was replaced").isEqualTo(401);
        HttpResponse<String> invalid = forge.post("/servers/7/sites", Map.of("domain", "Not A Domain"));
        assertThat(invalid.statusCode()).isEqualTo(422);
        assertThat(SimClient.json(invalid).get("errors").has("domain")).isTrue();
    }
}
