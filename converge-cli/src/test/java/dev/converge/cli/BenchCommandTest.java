package dev.converge.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.testkit.ScratchDatabase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * {@code converge bench queue}, small, on both stores: it runs to the end, and its JSON carries
 * every documented key, one figure per measured round, and medians that are the rounds' medians.
 * No speed is asserted here; the figures are for people to read beside the in-run reference.
 */
class BenchCommandTest {

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aSmallBenchRunWritesEveryFigureAndEachRound(String store, @TempDir Path dir) throws Exception {
        if (store.equals("postgres")) {
            // skips without a server, and fails under CI=true, like every PostgreSQL suite
            ScratchDatabase.create("cv_benchprobe").close();
        }
        Path json = dir.resolve("bench.json");
        int exit = new CommandLine(new BenchCommand()).execute("queue", "--store", store, "--jobs", "300",
                "--workers", "4", "--samples", "20", "--rounds", "3", "--json", json.toString());

        assertThat(exit).as("exit code").isZero();
        JsonNode r = new ObjectMapper().readTree(json.toFile());
        List<String> keys = new ArrayList<>();
        r.fieldNames().forEachRemaining(keys::add);
        assertThat(keys).contains("store", "jobs", "workers", "enqueue_bulk_jps", "enqueue_single_jps", "process_jps",
                "pickup_p50_ms", "pickup_p99_ms", "reference_process_jps", "ratio", "cold_ratio",
                "reference_enqueue_bulk_jps", "reference_enqueue_single_jps", "process_cold_jps",
                "reference_process_cold_jps", "enqueue_bulk_cold_jps", "enqueue_single_ratio", "settings");
        assertThat(r.path("settings").asText()).contains("prefetch default").contains("no VACUUM");
        if (store.equals("postgres")) {
            assertThat(keys).contains("pickup_in_tx_p50_ms", "pickup_in_tx_p99_ms");
        }
        assertThat(r.path("store").asText()).isEqualTo(store);
        assertThat(r.path("jobs").asInt()).isEqualTo(300);
        assertThat(r.path("rounds").asInt()).isEqualTo(3);
        for (String k : List.of("enqueue_bulk_jps", "enqueue_single_jps", "process_jps", "reference_process_jps", "ratio",
                "pickup_p50_ms", "pickup_p99_ms", "process_cold_jps", "reference_process_cold_jps", "cold_ratio",
                "reference_enqueue_bulk_jps", "reference_enqueue_single_jps")) {
            assertThat(r.path(k).asDouble()).as(k).isPositive();
        }
        assertThat(r.path("pickup_p99_ms").asDouble()).isGreaterThanOrEqualTo(r.path("pickup_p50_ms").asDouble());
        assertThat(r.path("process_jps").asLong()).isEqualTo(median(r.path("process_jps_rounds")));
        assertThat(r.path("reference_process_jps").asLong()).isEqualTo(median(r.path("reference_process_jps_rounds")));
        assertThat(r.path("enqueue_bulk_jps").asLong()).isEqualTo(median(r.path("enqueue_bulk_jps_rounds")));
        assertThat(r.path("reference_enqueue_single_jps").asLong())
                .isEqualTo(median(r.path("reference_enqueue_single_jps_rounds")));
    }

    @Test
    void onlyRunsThePhasesAskedFor(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("bench.json");
        int exit = new CommandLine(new BenchCommand()).execute("queue", "--store", "h2", "--jobs", "200", "--workers", "2",
                "--rounds", "1", "--only", "process", "--vacuum", "--json", json.toString());

        assertThat(exit).isZero();
        JsonNode r = new ObjectMapper().readTree(json.toFile());
        assertThat(r.has("process_jps")).isTrue();
        assertThat(r.has("enqueue_bulk_jps")).isFalse();
        assertThat(r.has("pickup_p50_ms")).isFalse();
        assertThat(r.path("settings").asText()).contains("VACUUM ANALYZE before every processing run");
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void finishedRowsSitInTheTableForTheEngineAndTheReferenceAlike(String store, @TempDir Path dir) throws Exception {
        if (store.equals("postgres")) {
            ScratchDatabase.create("cv_benchprobe").close();
        }
        Path json = dir.resolve("bench.json");
        int exit = new CommandLine(new BenchCommand()).execute("queue", "--store", store, "--jobs", "200", "--workers", "2",
                "--rounds", "1", "--only", "process", "--finished-rows", "20000", "--json", json.toString());

        assertThat(exit).isZero();
        JsonNode r = new ObjectMapper().readTree(json.toFile());
        assertThat(r.path("process_jps").asDouble()).isPositive();
        assertThat(r.path("reference_process_jps").asDouble()).isPositive();
        assertThat(r.path("settings").asText()).contains("20000 finished jobs in the table during every processing run");
        assertThat(new CommandLine(new BenchCommand()).execute("queue", "--store", "h2", "--finished-rows", "-1"))
                .as("a negative history is refused").isNotZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aSmallFlowBenchRunsBothKindsAndChecksWhatTheLeavesHold(String store, @TempDir Path dir) throws Exception {
        if (store.equals("postgres")) {
            ScratchDatabase.create("cv_benchprobe").close();
        }
        Path json = dir.resolve("flow.json");
        int exit = new CommandLine(new BenchCommand()).execute("flow", "--store", store, "--flows", "20", "--workers", "4",
                "--rounds", "1", "--json", json.toString());

        assertThat(exit).as("exit code").isZero();
        JsonNode r = new ObjectMapper().readTree(json.toFile());
        for (String k : List.of("guarded_flows_per_s", "plain_flows_per_s", "guarded_steps_per_s", "plain_steps_per_s",
                "ratio", "guarded_cold_flows_per_s", "plain_cold_flows_per_s", "cold_ratio")) {
            assertThat(r.path(k).asDouble()).as(k).isPositive();
        }
        assertThat(r.path("guarded_steps_per_s").asLong()).isCloseTo(5 * r.path("guarded_flows_per_s").asLong(), within(5L));
        // the run checks the leaves itself and fails when they hold anything but one resource per step and flow
        assertThat(r.path("check").asText()).isEqualTo("100 resources held, 100 creates, 20 single-use tokens spent, for 20 flows");
        if (store.equals("postgres")) {
            // the ledger's claim and confirm and the token's checkout and spend are transactions of their own
            assertThat(r.path("guarded_commits_per_flow").asDouble())
                    .isGreaterThan(r.path("plain_commits_per_flow").asDouble());
            // the server runs on this machine: its backends' CPU is read from /proc (10 ms ticks, so it may round to 0)
            assertThat(r.has("guarded_db_cpu_us_per_step")).isTrue();
            assertThat(r.path("guarded_db_cpu_us_per_step").asLong()).isNotNegative();
            assertThat(r.path("plain_db_cpu_us_per_step").asLong()).isNotNegative();
        } else {
            assertThat(r.has("guarded_commits_per_flow")).isFalse();
            assertThat(r.has("guarded_db_cpu_us_per_step")).as("no server backends on H2").isFalse();
        }
        assertThat(r.path("guarded_jvm_cpu_us_per_step").asLong()).as("a step costs this JVM some CPU").isPositive();
        assertThat(r.path("plain_jvm_cpu_us_per_step").asLong()).isPositive();
        assertThat(new CommandLine(new BenchCommand()).execute("flow", "--store", "h2", "--flows", "5"))
                .as("fewer than 10 flows are refused").isNotZero();
    }

    private static long median(JsonNode rounds) {
        assertThat(rounds.size()).isEqualTo(3);
        long[] v = new long[3];
        for (int i = 0; i < 3; i++) {
            v[i] = rounds.get(i).asLong();
            assertThat(v[i]).isPositive();
        }
        Arrays.sort(v);
        return v[1];
    }
}
