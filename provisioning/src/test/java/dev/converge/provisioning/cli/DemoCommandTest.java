package dev.converge.provisioning.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.provisioning.check.CheckReport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The README's main command, small: {@code converge demo} provisions sites end to end through the
 * HTTP API with leaf faults and crash points on, tears some down, exits 0 only when the leaves
 * agree with what was asked, and writes the report as JSON with the violation keys.
 */
class DemoCommandTest {

    @Test
    void aSmallDemoConvergesAndReportsEveryViolationKeyAsZero(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("demo.json");
        int exit = new CommandLine(new DemoCommand()).execute("--sites", "12", "--seed", "3", "--fault-rate", "0.3",
                "--crash-rate", "0.2", "--teardown", "0.3", "--json", json.toString());

        assertThat(exit).as("exit code").isZero();
        JsonNode report = new ObjectMapper().readTree(json.toFile());
        assertThat(report.path("sites").asInt()).isEqualTo(12);
        List<String> keys = new ArrayList<>();
        report.path("violations").fieldNames().forEachRemaining(keys::add);
        assertThat(keys).containsExactlyInAnyOrderElementsOf(CheckReport.KEYS);
        report.path("violations").fields().forEachRemaining(v -> assertThat(v.getValue().asInt()).as(v.getKey()).isZero());
        long faults = 0;
        for (JsonNode n : report.path("fault_hits")) {
            faults += n.asLong();
        }
        assertThat(faults).as("leaf faults hit during the demo").isPositive();
        long crashes = 0;
        for (JsonNode n : report.path("crash_point_hits")) {
            crashes += n.asLong();
        }
        assertThat(crashes).as("crash points hit during the demo").isPositive();

        // the scripted conversation: the site asked for, the answer quoting its receipt's deadline, the delete refused
        JsonNode conversation = report.path("conversation");
        assertThat(conversation.path("conversation_id").asLong()).isPositive();
        assertThat(conversation.path("site_id").asLong()).isPositive();
        assertThat(conversation.path("receipt_deadline").asText()).isNotBlank();
        assertThat(conversation.path("answer_quotes_deadline").asBoolean()).as(conversation.toString()).isTrue();
        assertThat(conversation.path("delete_refused_without_approval").asBoolean()).as(conversation.toString()).isTrue();
        assertThat(conversation.path("turns").path("answered").asLong()).isEqualTo(2);
    }
}
