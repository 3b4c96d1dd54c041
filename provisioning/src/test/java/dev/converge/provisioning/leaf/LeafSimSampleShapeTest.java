package dev.converge.provisioning.leaf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.converge.leafsim.LeafSim;
import dev.converge.leafsim.fault.FaultRule;
import dev.converge.leafsim.fault.FaultType;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The simulated leaves answer in the providers' shapes: every field of a sample (samples/) is in
 * the simulator's answer to the same call, with the same JSON type (a null in the sample allows
 * anything), and the headers the drivers read (Link, Retry-After) are there when the sample has them.
 */
class LeafSimSampleShapeTest {
    @RegisterExtension
    static final SimulatedLeaves leaves = new SimulatedLeaves();
    static final HttpClient CLIENT = HttpClient.newHttpClient();

    record Answer(int status, java.net.http.HttpHeaders headers, JsonNode body) {
    }

    private static Answer call(String leaf, String token, String method, String pathAndQuery, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(leaves.sim.leafUrl(leaf) + pathAndQuery))
                .header("Authorization", "Bearer " + token).header("Accept", "application/json");
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        try {
            HttpResponse<String> response = CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
            JsonNode json = response.body().isBlank() ? null : SampleServer.JSON.readTree(response.body());
            return new Answer(response.statusCode(), response.headers(), json);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Every difference between the sample's shape and the answer's, as JSON paths. */
    static List<String> shapeDifferences(JsonNode sample, JsonNode actual, String path) {
        List<String> problems = new ArrayList<>();
        if (sample == null || sample.isNull()) {
            return problems;
        }
        if (actual == null || actual.isMissingNode()) {
            problems.add(path + ": missing");
            return problems;
        }
        if (actual.isNull()) {
            problems.add(path + ": null where the sample has " + sample.getNodeType());
            return problems;
        }
        if (sample.getNodeType() != actual.getNodeType()) {
            problems.add(path + ": " + actual.getNodeType() + " where the sample has " + sample.getNodeType());
            return problems;
        }
        if (sample.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = sample.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                if (!actual.has(field.getKey())) {
                    problems.add(path + "." + field.getKey() + ": missing");
                } else {
                    problems.addAll(shapeDifferences(field.getValue(), actual.get(field.getKey()), path + "." + field.getKey()));
                }
            }
        } else if (sample.isArray() && !sample.isEmpty() && !actual.isEmpty()) {
            problems.addAll(shapeDifferences(sample.get(0), actual.get(0), path + "[0]"));
        } else if (sample.isArray() && !sample.isEmpty()) {
            problems.add(path + ": empty where the sample has items");
        }
        return problems;
    }

    private static void assertShape(String sampleName, Answer answer) {
        JsonNode sample = SampleServer.sample(sampleName);
        assertThat(answer.status()).as(sampleName + " status").isEqualTo(sample.path("status").asInt());
        assertThat(shapeDifferences(sample.get("body"), answer.body(), "$")).as(sampleName + " body shape").isEmpty();
        for (String header : List.of("Link", "Retry-After")) {
            if (sample.path("headers").has(header)) {
                assertThat(answer.headers().firstValue(header)).as(sampleName + " header " + header).isPresent();
            }
        }
        if (sample.path("headers").path("Link").asText().contains("rel=\"next\"")) {
            assertThat(answer.headers().firstValue("Link").orElseThrow()).contains("rel=\"next\"");
        }
    }

    @Test
    void theShapeCheckItselfCatchesAMissingFieldAndATypeChange() {
        JsonNode sample = SampleServer.sample("github/get-repo-200.json").get("body");
        JsonNode changed = sample.deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) changed).remove("full_name");
        ((com.fasterxml.jackson.databind.node.ObjectNode) changed).put("id", "1296269");
        assertThat(shapeDifferences(sample, changed, "$")).containsExactlyInAnyOrder("$.id: STRING where the sample has NUMBER",
                "$.full_name: missing");
        assertThat(shapeDifferences(sample, sample, "$")).isEmpty();
    }

    @Test
    void gitHostAnswersInGitHubsShapes() {
        String token = SimulatedLeaves.GITHOST_TOKEN;
        String body = "{\"name\":\"Hello-World\",\"description\":\"This your first repo!\",\"private\":false}";
        assertShape("github/create-org-repo-201.json", call(LeafSim.GITHOST, token, "POST", "/orgs/octocat/repos", body));
        assertShape("github/get-repo-200.json", call(LeafSim.GITHOST, token, "GET", "/repos/octocat/Hello-World", null));
        assertShape("github/create-org-repo-422-exists.json",
                call(LeafSim.GITHOST, token, "POST", "/orgs/octocat/repos", body));
        call(LeafSim.GITHOST, token, "POST", "/orgs/octocat/repos", "{\"name\":\"Spoon-Knife\",\"description\":\"d\"}");
        assertShape("github/list-org-repos-page1.json",
                call(LeafSim.GITHOST, token, "GET", "/orgs/octocat/repos?per_page=1", null));
        assertShape("github/list-org-repos-page2.json",
                call(LeafSim.GITHOST, token, "GET", "/orgs/octocat/repos?per_page=1&page=2", null));
    }

    @Test
    void hostingAnswersInForgesShapes() {
        String token = SimulatedLeaves.HOSTING_TOKEN;
        String body = "{\"domain\":\"site.com\",\"aliases\":[\"alias1.com\"],\"project_type\":\"php\","
                + "\"directory\":\"/public\",\"tags\":[\"converge:site-2\"]}";
        assertShape("forge/create-site-200.json", call(LeafSim.HOSTING, token, "POST", "/servers/1/sites", body));
        assertShape("forge/create-site-422-taken.json", call(LeafSim.HOSTING, token, "POST", "/servers/1/sites", body));
        call(LeafSim.HOSTING, token, "POST", "/servers/1/sites", "{\"domain\":\"second.com\",\"tags\":[\"t\"]}");
        Answer page1 = call(LeafSim.HOSTING, token, "GET", "/servers/1/sites?page%5Bsize%5D=1", null);
        assertShape("forge/list-sites-page1.json", page1);
        String cursor = page1.body().path("meta").path("next_cursor").asText();
        Answer page2 = call(LeafSim.HOSTING, token, "GET", "/servers/1/sites?page%5Bsize%5D=1&page%5Bcursor%5D=" + cursor, null);
        assertThat(page2.body().path("meta").path("next_cursor").isNull()).as("the last page has no next cursor").isTrue();
        assertThat(page2.body().path("sites").get(0).path("name").asText()).isEqualTo("second.com");

        leaves.sim.faults().add(new FaultRule(LeafSim.HOSTING, "create", FaultType.THROTTLE, null, 1, null, null, 42));
        assertShape("forge/too-many-requests-429.json", call(LeafSim.HOSTING, token, "POST", "/servers/1/sites", body));
    }

    @Test
    void hostingAnswersInForgesCurrentApiShapes() {
        String token = SimulatedLeaves.HOSTING_TOKEN;
        String body = "{\"type\":\"php\",\"domain_mode\":\"custom\",\"name\":\"site.com\",\"web_directory\":\"/public\","
                + "\"is_isolated\":true,\"isolated_user\":\"cv505ef379-site-2\"}";
        String sites = "/orgs/acme/servers/5/sites"; // a server of its own: the v1 test makes site.com on 1
        assertShape("forge/current-create-site-201.json", call(LeafSim.HOSTING, token, "POST", sites, body));
        assertShape("forge/current-create-site-422-taken.json", call(LeafSim.HOSTING, token, "POST", sites, body));
        call(LeafSim.HOSTING, token, "POST", sites, "{\"type\":\"php\",\"domain_mode\":\"custom\",\"name\":\"second.com\"}");
        Answer page1 = call(LeafSim.HOSTING, token, "GET", sites + "?page%5Bsize%5D=1", null);
        assertShape("forge/current-list-sites-page1.json", page1);
        String cursor = page1.body().path("meta").path("next_cursor").asText();
        Answer page2 = call(LeafSim.HOSTING, token, "GET", sites + "?page%5Bsize%5D=1&page%5Bcursor%5D=" + cursor, null);
        assertShape("forge/current-list-sites-page2.json", page2);
        assertThat(page2.body().path("data").get(0).path("attributes").path("user").asText())
                .as("a site that is not isolated runs as forge").isEqualTo("forge");
        String id = page1.body().path("data").get(0).path("id").asText();
        assertShape("forge/current-create-deployment-200.json",
                call(LeafSim.HOSTING, token, "POST", sites + "/" + id + "/deployments", null));
        assertThat(call(LeafSim.HOSTING, token, "POST", sites, "{\"name\":\"third.com\",\"type\":\"php\"}").status())
                .as("domain_mode is required").isEqualTo(422);
    }

    @Test
    void theCurrentApiDriversRequestsAreAnsweredByTheSimulatorAsByForge() {
        HostingDriver driver = new HostingDriver(HostingConfig.current(leaves.http(LeafSim.HOSTING,
                SimulatedLeaves.HOSTING_TOKEN), "converge", "7"), dev.converge.ledger.ResourceTags.defaults());
        String tag = dev.converge.ledger.ResourceTags.defaults().tagFor("site-31");
        var created = driver.create("shop31.sites.example", tag, null);
        assertThat(created.tag()).isEqualTo(tag);
        assertThatThrownBy(() -> driver.create("shop31.sites.example", tag, null))
                .isInstanceOf(dev.converge.ledger.ResourceExists.class);
        assertThat(driver.find("shop31.sites.example")).hasValueSatisfying(r -> {
            assertThat(r.leafId()).isEqualTo(created.leafId());
            assertThat(r.tag()).as("read back from the isolated user the simulator kept").isEqualTo(tag);
        });
        driver.deploy(created.leafId());
        driver.delete(created.leafId());
        driver.delete(created.leafId()); // already gone: a success (R2)
        assertThat(driver.find("shop31.sites.example")).isEmpty();
    }

    @Test
    void licenseAnswersInTheLicenseApisShapes() {
        String token = SimulatedLeaves.LICENSE_TOKEN;
        assertShape("license/create-license-201.json", call(LeafSim.LICENSE, token, "POST", "/sites",
                "{\"name\":\"converge:site-7\",\"domain\":\"site7.sites.example\"}"));
        call(LeafSim.LICENSE, token, "POST", "/sites", "{\"name\":\"converge:site-8\",\"domain\":\"site8.sites.example\"}");
        assertShape("license/list-licenses-page1.json", call(LeafSim.LICENSE, token, "GET", "/sites?page%5Bsize%5D=1", null));
        assertShape("license/list-licenses-page2.json",
                call(LeafSim.LICENSE, token, "GET", "/sites?page%5Bsize%5D=1&page%5Bnumber%5D=2", null));

        // Statamic's own documented answers: create, the site list, delete
        Answer created = call(LeafSim.LICENSE, token, "POST", "/sites",
                "{\"name\":\"converge:site-9\",\"domain\":\"site9.sites.example\"}");
        assertShape("license/statamic-create-site.json", created);
        assertShape("license/statamic-list-sites.json", call(LeafSim.LICENSE, token, "GET", "/sites", null));
        assertShape("license/statamic-delete-site.json", call(LeafSim.LICENSE, token, "DELETE",
                "/sites/" + created.body().path("data").path("key").asText(), null));
        Answer manyDomains = call(LeafSim.LICENSE, token, "POST", "/sites",
                "{\"name\":\"converge:site-10\",\"domains\":[\"site10.sites.example\",\"staging.site10.example\"]}");
        assertThat(manyDomains.body().path("data").path("domains").get(0).asText()).isEqualTo("site10.sites.example");

        leaves.sim.faults().add(new FaultRule(LeafSim.LICENSE, "create", FaultType.THROTTLE, null, 1, null, null, 17));
        Answer throttled = call(LeafSim.LICENSE, token, "POST", "/sites", "{\"name\":\"n\",\"domain\":\"d.example\"}");
        assertThat(throttled.status()).isEqualTo(429);
        assertThat(throttled.headers().firstValue("Retry-After")).hasValue("17");
    }

    @Test
    void theDriversPageThroughTheSimulatorAsThroughTheProviders() {
        // one more than a driver's page (100) in each leaf: the second page is reached only by following
        // the simulator's Link header, next cursor and links.next
        for (int i = 0; i <= 100; i++) {
            leaves.gitHost().create("paged-" + i, "converge:paged", null);
            leaves.hosting().create("paged" + i + ".example.com", "converge:paged", null);
            leaves.license().create("paged" + i + ".example.com", "converge:paged", null);
        }
        assertThat(leaves.gitHost().list()).filteredOn(r -> r.naturalKey().startsWith("paged-")).hasSize(101);
        assertThat(leaves.hosting().list()).filteredOn(r -> r.naturalKey().startsWith("paged")).hasSize(101);
        assertThat(leaves.license().list()).filteredOn(r -> r.naturalKey().startsWith("paged")).hasSize(101);
    }
}
