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
            List<JsonNode> answers = new ArrayList<>();
            for (String command : commands) {
                answers.add(json.readTree(run(command.replace("localhost:8080", "127.0.0.1:" + api.server.port()), token)));
            }
            assertThat(answers.get(0).path("name").asText()).as(answers.get(0).toString()).isEqualTo("Ada");
            assertThat(answers.get(1).path("status").asText()).as(answers.get(1).toString()).isEqualTo("provisioning");
            assertThat(answers.get(1).path("expected_url").asText()).contains("ada-shop");
            assertThat(answers.get(2).path("subdomain").asText()).as(answers.get(2).toString()).isEqualTo("ada-shop");
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
