package dev.converge.leafsim;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.converge.leafsim.inventory.InventoryEvent;
import dev.converge.leafsim.inventory.InventorySnapshot;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class GitHostLeafTest {
    static LeafSim sim;
    static SimClient git;

    @BeforeAll
    static void start() {
        sim = LeafSim.start(LeafSimConfig.builder().token(LeafSim.GITHOST, "gh-secret").build());
        git = new SimClient(sim.leafUrl(LeafSim.GITHOST), "gh-secret");
    }

    @AfterAll
    static void stop() {
        sim.close();
    }

    @Test
    void createsGetsListsAndDeletesARepository() throws Exception {
        HttpResponse<String> created = git.post("/orgs/acme/repos",
                Map.of("name", "site-one", "description", "converge:site-1", "private", true));
        assertThat(created.statusCode()).isEqualTo(201);
        JsonNode repo = SimClient.json(created);
        assertThat(repo.get("id").isNumber()).isTrue();
        assertThat(repo.get("full_name").asText()).isEqualTo("acme/site-one");
        assertThat(repo.get("description").asText()).isEqualTo("converge:site-1");
        assertThat(repo.get("html_url").asText()).endsWith("/acme/site-one");

        assertThat(SimClient.json(git.get("/repos/acme/site-one")).get("id")).isEqualTo(repo.get("id"));
        assertThat(SimClient.json(git.get("/orgs/acme/repos")).findValuesAsText("name")).contains("site-one");

        assertThat(git.delete("/repos/acme/site-one").statusCode()).isEqualTo(204);
        assertThat(git.get("/repos/acme/site-one").statusCode()).isEqualTo(404);
        assertThat(git.delete("/repos/acme/site-one").statusCode()).isEqualTo(404);

        InventorySnapshot inventory = sim.inventory(LeafSim.GITHOST);
        assertThat(inventory.currentOf("site-one")).isEmpty();
        assertThat(inventory.createsOf("site-one")).isEqualTo(1);
        assertThat(inventory.history()).filteredOn(e -> e.naturalKey().equals("site-one"))
                .extracting(InventoryEvent::kind)
                .containsExactly(InventoryEvent.Kind.CREATED, InventoryEvent.Kind.DELETED);
    }

    @Test
    void aSecondCreateWithTheSameNameIsRefusedAsAlreadyExists() throws Exception {
        assertThat(git.post("/orgs/dup/repos", Map.of("name", "twice")).statusCode()).isEqualTo(201);
        HttpResponse<String> second = git.post("/orgs/dup/repos", Map.of("name", "twice"));

        assertThat(second.statusCode()).isEqualTo(422);
        JsonNode error = SimClient.json(second);
        assertThat(error.get("message").asText()).isEqualTo("Repository creation failed.");
        assertThat(error.get("errors").get(0).get("code").asText()).isEqualTo("already_exists");
        assertThat(error.get("errors").get(0).get("field").asText()).isEqualTo("name");
        assertThat(git.post("/orgs/other-org/repos", Map.of("name", "twice")).statusCode())
                .as("names are unique per org only").isEqualTo(201);
        assertThat(sim.inventory(LeafSim.GITHOST).createsOf("twice")).isEqualTo(2);
    }

    @Test
    void refusesMissingOrWrongTokens() throws Exception {
        SimClient anonymous = new SimClient(sim.leafUrl(LeafSim.GITHOST), null);
        SimClient wrong = new SimClient(sim.leafUrl(LeafSim.GITHOST), "gh-secreT");

        HttpResponse<String> noToken = anonymous.post("/orgs/acme/repos", Map.of("name", "nope"));
        assertThat(noToken.statusCode()).isEqualTo(401);
        assertThat(SimClient.json(noToken).get("message").asText()).isEqualTo("Bad credentials");
        assertThat(wrong.get("/orgs/acme/repos").statusCode()).isEqualTo(401);
        assertThat(sim.inventory(LeafSim.GITHOST).createsOf("nope")).isZero();
    }

    @Test
    void rejectsInvalidNamesAndUnparseableBodies() throws Exception {
        HttpResponse<String> invalid = git.post("/orgs/acme/repos", Map.of("name", "has space"));
        assertThat(invalid.statusCode()).isEqualTo(422);
        assertThat(SimClient.json(invalid).get("errors").get(0).get("code").asText()).isEqualTo("invalid");
        assertThat(git.post("/orgs/acme/repos", "not an object").statusCode()).isEqualTo(400);
    }

    @Test
    void listsInPagesLinkedByTheLinkHeader() throws Exception {
        for (int i = 0; i < 5; i++) {
            git.post("/orgs/paged/repos", Map.of("name", "r" + i));
        }
        HttpResponse<String> first = git.get("/orgs/paged/repos?per_page=2&page=1");
        assertThat(first.headers().firstValue("Link")).hasValueSatisfying(
                link -> assertThat(link).contains("page=2").contains("rel=\"next\""));

        List<String> names = new ArrayList<>();
        for (int page = 1; page <= 3; page++) {
            SimClient.json(git.get("/orgs/paged/repos?per_page=2&page=" + page)).forEach(r -> names.add(r.get("name").asText()));
        }
        assertThat(names).containsExactly("r0", "r1", "r2", "r3", "r4");
        assertThat(git.get("/orgs/paged/repos?per_page=2&page=3").headers().firstValue("Link"))
                .as("the last page links back, never forward").hasValueSatisfying(link -> assertThat(link)
                        .contains("rel=\"prev\"").doesNotContain("rel=\"next\""));
    }
}
