package dev.converge.leafsim;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.converge.leafsim.fault.FaultType;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ControlApiTest {
    static LeafSim sim;
    static SimClient control;
    static SimClient git;

    @BeforeAll
    static void start() {
        sim = LeafSim.start(LeafSimConfig.builder().tokenForAll("leaf-token").controlToken("control-token").build());
        control = new SimClient(sim.baseUrl() + "/_control", "control-token");
        git = new SimClient(sim.leafUrl(LeafSim.GITHOST), "leaf-token");
    }

    @AfterAll
    static void stop() {
        sim.close();
    }

    @Test
    void setsFaultsReadsHitsAndClearsThemOverHttp() throws Exception {
        HttpResponse<String> set = control.post("/faults", Map.of("seed", 7, "rules", List.of(
                Map.of("leaf", "githost", "route", "create", "type", "error_after", "times", 1))));
        assertThat(set.statusCode()).isEqualTo(200);
        assertThat(SimClient.json(set).get("seed").asLong()).isEqualTo(7);
        assertThat(SimClient.json(control.get("/faults")).get("rules")).hasSize(1);

        assertThat(git.post("/orgs/ctl/repos", Map.of("name", "faulted")).statusCode()).isEqualTo(500);

        JsonNode hits = SimClient.json(control.get("/faults/hits")).get("hits");
        assertThat(hits).hasSize(1);
        assertThat(hits.get(0).get("leaf").asText()).isEqualTo("githost");
        assertThat(hits.get(0).get("route").asText()).isEqualTo("create");
        assertThat(hits.get(0).get("type").asText()).isEqualTo("ERROR_AFTER");
        assertThat(hits.get(0).get("hits").asLong()).isEqualTo(1);

        control.post("/faults", Map.of("leaf", "githost", "type", "ERROR_BEFORE"));
        assertThat(control.delete("/faults").statusCode()).isEqualTo(204);
        assertThat(sim.faults().rules()).isEmpty();
        assertThat(git.post("/orgs/ctl/repos", Map.of("name", "clean")).statusCode()).isEqualTo(201);
        assertThat(control.delete("/faults/hits").statusCode()).isEqualTo(204);
        assertThat(sim.faults().hits()).isEmpty();
    }

    @Test
    void servesTheInventoryWithHistory() throws Exception {
        git.post("/orgs/inv/repos", Map.of("name", "gone", "description", "tag-1"));
        git.delete("/repos/inv/gone");

        JsonNode inventory = SimClient.json(control.get("/inventory/githost"));
        assertThat(inventory.get("leaf").asText()).isEqualTo("githost");
        assertThat(inventory.get("current").findValuesAsText("naturalKey")).doesNotContain("gone");
        List<String> kinds = inventory.get("history").findParents("naturalKey").stream()
                .filter(e -> e.get("naturalKey").asText().equals("gone")).map(e -> e.get("kind").asText()).toList();
        assertThat(kinds).containsExactly("CREATED", "DELETED");
        assertThat(inventory.get("history").get(0).get("at").asText()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
        assertThat(control.get("/inventory/nosuchleaf").statusCode()).isEqualTo(404);
    }

    @Test
    void rejectsInvalidRulesAndMissingControlToken() throws Exception {
        assertThat(control.post("/faults", Map.of("leaf", "nosuchleaf", "type", "ERROR_BEFORE")).statusCode())
                .isEqualTo(400);
        assertThat(control.post("/faults", Map.of("leaf", "githost", "type", "ERROR_BEFORE", "probability", 2))
                .statusCode()).isEqualTo(400);
        assertThat(control.post("/faults", Map.of("leaf", "githost", "type", "NOT_A_FAULT")).statusCode())
                .isEqualTo(400);
        assertThat(new SimClient(sim.baseUrl() + "/_control", "leaf-token").get("/faults/hits").statusCode())
                .as("a leaf token does not open the control API").isEqualTo(401);
        assertThat(sim.faults().hits(LeafSim.GITHOST, "create", FaultType.ERROR_BEFORE)).isZero();
    }
}
