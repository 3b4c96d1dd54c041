package dev.converge.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.proof.check.CheckReport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
        assertThat(conversation.path("conversation_id").asText()).matches("conv_[0-9a-f]{32}");
        assertThat(conversation.path("site_id").asText()).matches("site_[0-9a-f]{32}");
        assertThat(conversation.path("receipt_deadline").asText()).isNotBlank();
        assertThat(conversation.path("answer_quotes_deadline").asBoolean()).as(conversation.toString()).isTrue();
        assertThat(conversation.path("delete_refused_without_approval").asBoolean()).as(conversation.toString()).isTrue();
        assertThat(conversation.path("turns").path("answered").asLong()).isEqualTo(2);
    }

    @Test
    void withAShortTrialSitesExpireAfterOneReminderOneSubscribedStaysAndAFailedOneIsRetriedByHand(@TempDir Path dir)
            throws Exception {
        Path json = dir.resolve("trial.json");
        int exit = new CommandLine(new DemoCommand()).execute("--sites", "10", "--seed", "11", "--fault-rate", "0.1",
                "--crash-rate", "0.05", "--teardown", "0", "--trial", "30s", "--json", json.toString());

        assertThat(exit).as("exit code").isZero();
        JsonNode report = new ObjectMapper().readTree(json.toFile());
        report.path("violations").fields().forEachRemaining(v -> assertThat(v.getValue().asInt()).as(v.getKey()).isZero());
        JsonNode trials = report.path("check").path("trials");
        assertThat(trials.path("subscribed").asLong()).as(trials.toString()).isGreaterThanOrEqualTo(2);
        assertThat(trials.path("expired").asLong()).as(trials.toString()).isPositive();
        // one reminder per expired site (a second is a violation); a site still provisioning when its short trial
        // ended may have had none
        assertThat(trials.path("reminders").asLong()).as(trials.toString()).isPositive();
        assertThat(trials.path("reminders").asLong() + trials.path("expired_without_reminder").asLong())
                .as(trials.toString()).isEqualTo(trials.path("expired").asLong());
        assertThat(report.path("requests").path("retried_by_hand").asLong()).as("the failed site, retried to active")
                .isEqualTo(1);
        JsonNode byState = report.path("check").path("sites_by_state");
        assertThat(byState.path("active").asLong()).as("the subscribed sites stay").isEqualTo(
                trials.path("subscribed").asLong());
        assertThat(byState.path("provisioning").asLong() + byState.path("deleting").asLong()).isZero();
    }

    @Test
    void withKeepItPrintsTheDashboardAndATokenThatOpensItAndStaysUpUntilReleased() throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        ExecutorService runner = Executors.newSingleThreadExecutor();
        DemoCommand demo = new DemoCommand();
        try {
            Future<Integer> exit = runner.submit(() -> new CommandLine(demo).execute("--sites", "2", "--seed", "5",
                    "--fault-rate", "0", "--crash-rate", "0", "--teardown", "0", "--keep"));
            await().atMost(Duration.ofSeconds(120)).until(() -> exit.isDone()
                    || (demo.keepOpen != null && demo.keepOpen.waiting()));
            assertThat(exit.isDone()).as("the demo waits, its server up: " + printed).isFalse();
            String out = printed.toString(StandardCharsets.UTF_8);
            Matcher url = Pattern.compile("dashboard\\s+(http://127\\.0\\.0\\.1:\\d+/ui)").matcher(out);
            Matcher token = Pattern.compile("operator token\\s+(cvo_[A-Za-z0-9_-]{43})").matcher(out);
            assertThat(url.find()).as(out).isTrue();
            assertThat(token.find()).as(out).isTrue();
            assertThat(out.indexOf("REPORT")).as("the report comes first, then the wait").isPositive()
                    .isLessThan(out.indexOf("--keep: the dashboard stays up at " + url.group(1)));

            HttpClient http = HttpClient.newHttpClient();
            assertThat(http.send(HttpRequest.newBuilder(URI.create(url.group(1))).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
            HttpResponse<String> session = http.send(HttpRequest.newBuilder(URI.create(url.group(1) + "/session"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"token\":\"" + token.group(1) + "\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(session.statusCode()).as("the printed token opens the dashboard: " + session.body()).isEqualTo(200);

            demo.keepOpen.release(); // what Ctrl-C does, through the shutdown hook
            assertThat(exit.get(60, TimeUnit.SECONDS)).isZero();
            assertThatThrownBy(() -> http.send(HttpRequest.newBuilder(URI.create(url.group(1))).build(),
                    HttpResponse.BodyHandlers.ofString())).as("the server is down once released").isInstanceOf(IOException.class);
        } finally {
            System.setOut(original);
            runner.shutdownNow();
        }
    }

    @Test
    void keepIsAnOptionAndOffByDefault() {
        DemoCommand off = new DemoCommand();
        new CommandLine(off).parseArgs();
        assertThat(off.keep).isFalse();
        DemoCommand on = new DemoCommand();
        new CommandLine(on).parseArgs("--keep");
        assertThat(on.keep).isTrue();
    }
}
