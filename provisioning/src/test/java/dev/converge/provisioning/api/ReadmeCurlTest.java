package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The README's curl examples, run as written by bash and curl against a fresh server (only
 * {@code localhost:8080} is pointed at the test's port, and {@code $TOKEN} set to a new tenant's
 * service token): each answers what the README says it does.
 */
class ReadmeCurlTest {
    private static final String MARK = "Then, with the service token:";

    @Test
    void theReadmesCurlExamplesWorkAsWritten() throws Exception {
        List<String> commands = commands(Files.readString(Path.of("..", "README.md")));
        assertThat(commands).as("the README's curl block").hasSize(3);
        try (ApiHarness api = new ApiHarness()) {
            String token = api.tenant().token();
            ObjectMapper json = new ObjectMapper();
            // one shell, as a reader would type them: the ids the first two answers give are kept in variables
            JsonNode site = json.readTree(run(String.join("\n", commands).replace("localhost:8080", "127.0.0.1:"
                    + api.server.port()), token));
            assertThat(site.path("site_id").asText()).as(site.toString()).matches("site_[0-9a-f]{32}");
            assertThat(site.path("lead_id").asText()).matches("lead_[0-9a-f]{32}");
            assertThat(site.path("subdomain").asText()).isEqualTo("ada-shop");
            assertThat(site.path("state").asText()).isIn("provisioning", "active");
            assertThat(api.count("SELECT COUNT(*) FROM pv_lead WHERE name = 'Ada' AND email = 'ada@example.com'"))
                    .isEqualTo(1);
        }
    }

    /** The commands of the first code block after the mark, continuation lines joined. */
    static List<String> commands(String readme) {
        int at = readme.indexOf(MARK);
        assertThat(at).as("the README still says '%s'", MARK).isPositive();
        int open = readme.indexOf("```\n", at) + 4;
        String block = readme.substring(open, readme.indexOf("```", open));
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : block.split("\n")) {
            if (line.endsWith("\\")) {
                current.append(line, 0, line.length() - 1).append(' ');
            } else {
                out.add(current.append(line).toString().strip());
                current.setLength(0);
            }
        }
        out.removeIf(String::isEmpty);
        return out;
    }

    private static String run(String command, String token) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true);
        pb.environment().put("TOKEN", token);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("%s: %s", command, out).isZero();
        return out;
    }
}
