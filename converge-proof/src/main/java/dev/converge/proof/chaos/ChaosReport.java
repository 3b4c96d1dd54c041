package dev.converge.proof.chaos;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.converge.proof.check.CheckReport;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What a chaos run did and found, for people ({@link #print}) and machines ({@link #writeJson}):
 * the attack (kills, pauses, restarts, fault and crash-point hits), the verdict per invariant
 * under {@code violations} (the same keys as the demo's report), and how long requests took to
 * converge.
 */
public record ChaosReport(
        @JsonProperty("mode") String mode,
        @JsonProperty("seed") long seed,
        @JsonProperty("duration_ms") long durationMs,
        @JsonProperty("sites") int sites,
        @JsonProperty("workers") int workers,
        @JsonProperty("requests") Map<String, Long> requests,
        @JsonProperty("kills") int kills,
        @JsonProperty("api_kills") int apiKills,
        @JsonProperty("pauses") int pauses,
        @JsonProperty("rolled") int rolled,
        @JsonProperty("restarts") int restarts,
        @JsonProperty("pg_restarts") int pgRestarts,
        @JsonProperty("fault_hits") Map<String, Long> faultHits,
        @JsonProperty("crash_point_hits") Map<String, Integer> crashPointHits,
        @JsonProperty("watchdog_failures") long watchdogFailures,
        @JsonProperty("quiescent") boolean quiescent,
        @JsonProperty("pending_at_check") String pendingAtCheck,
        @JsonProperty("converge_p50_ms") long convergeP50Ms,
        @JsonProperty("converge_p99_ms") long convergeP99Ms,
        @JsonProperty("converge_create_p50_ms") long createP50Ms,
        @JsonProperty("converge_create_p99_ms") long createP99Ms,
        @JsonProperty("converge_delete_p50_ms") long deleteP50Ms,
        @JsonProperty("converge_delete_p99_ms") long deleteP99Ms,
        @JsonProperty("converge_max_ms") long convergeMaxMs,
        @JsonProperty("warm_up_ms") long warmUpMs,
        @JsonProperty("converge_warm_count") int warmCount,
        @JsonProperty("converge_warm_p50_ms") long warmP50Ms,
        @JsonProperty("converge_warm_p99_ms") long warmP99Ms,
        @JsonProperty("converge_p99_ms_by_window") List<Long> p99ByWindowMs,
        @JsonProperty("cpu_idle_pct_by_window") List<Integer> cpuIdlePctByWindow,
        @JsonProperty("cpu_seconds_by_role") Map<String, Double> cpuSecondsByRole,
        @JsonProperty("processes_by_role") Map<String, Integer> processesByRole,
        @JsonProperty("check") CheckReport check,
        @JsonProperty("run_dir") String runDir) {

    @JsonProperty("violations")
    public Map<String, Integer> violations() {
        return check.violations();
    }

    /** Naive mode only: the damage the checker must see there (duplicates and orphans). */
    @JsonProperty("naive_damage_seen")
    public Boolean naiveDamageSeen() {
        return "naive".equals(mode) ? check.violations().get("duplicated") > 0 && check.violations().get("orphans") > 0
                : null;
    }

    public boolean clean() {
        return check.clean();
    }

    /** 0 when clean; 1 on any violation; 3 when naive mode shows no damage (the checker or the faults are broken). */
    public int exitCode() {
        if (Boolean.FALSE.equals(naiveDamageSeen())) {
            return 3;
        }
        return clean() ? 0 : 1;
    }

    public void print(PrintStream out) {
        out.println();
        out.println("CHAOS REPORT (" + mode + " mode)");
        out.printf("  seed              %d%n", seed);
        out.printf("  duration          %.1fs%n", durationMs / 1000.0);
        out.printf("  sites             %d requested, %d accepted; now %s%n", sites,
                requests.getOrDefault("sites_accepted", 0L), line(check.sitesByState()));
        out.printf("  client            %s%n", line(requests));
        out.printf("  attacks           %d SIGKILLs of workers, %d of the API server, %d SIGSTOPs past the lease, "
                + "%d restarts, %d PostgreSQL restarts (%d workers)%n", kills, apiKills, pauses, restarts, pgRestarts, workers);
        if (rolled > 0) {
            out.printf("  rolling deploy    %d workers stopped (SIGTERM) and restarted as the next release, whose flow "
                    + "has a step type the previous release does not handle%n", rolled);
        }
        out.printf("  fault hits        %s%n", line(faultHits));
        out.printf("  crash-point hits  %s%n", line(crashPointHits));
        List<String> missed = new java.util.ArrayList<>();
        for (Map<String, ? extends Number> hits : List.of(faultHits, crashPointHits)) {
            if (hits.values().stream().anyMatch(v -> v.longValue() > 0)) {
                hits.forEach((k, v) -> {
                    if (v.longValue() == 0) {
                        missed.add(k);
                    }
                });
            }
        }
        if (!missed.isEmpty()) {
            out.printf("  not reached       %s (every fault scenario should be hit in every run)%n", String.join(", ", missed));
        }
        out.printf("  watchdog          %d flows failed past their deadline%n", watchdogFailures);
        out.printf("  quiescence        %s%n", quiescent ? "reached" : "NOT reached: " + pendingAtCheck);
        check.leaves().forEach((leaf, t) -> out.printf("  leaf %-12s holds %d now; accepted %s creates; our ledger "
                + "records %d as held%n", leaf, t.held(), t.creates() < 0 ? "n/a" : Long.toString(t.creates()),
                t.ledgerConfirmed()));
        out.printf("  welcome emails    %d%n", check.welcomeEmails());
        out.printf("  trials            %d subscribed, %d expired at their deadline; %d reminder emails (%d expired "
                + "without one)%n", check.trials().subscribed(), check.trials().expired(), check.trials().reminders(),
                check.trials().expiredWithoutReminder());
        out.printf("  time to converge  p50 %s, p99 %s (site requests p50 %s, p99 %s; deletes p50 %s, p99 %s)%n",
                ms(convergeP50Ms), ms(convergeP99Ms), ms(createP50Ms), ms(createP99Ms), ms(deleteP50Ms), ms(deleteP99Ms));
        out.printf("                    max %s; accepted after the first %s of traffic (%d requests): p50 %s, p99 %s%n",
                ms(convergeMaxMs), ms(warmUpMs), warmCount, ms(warmP50Ms), ms(warmP99Ms));
        out.printf("                    p99 of the requests accepted in each %s of traffic: %s%n", ms(warmUpMs),
                p99ByWindowMs.stream().map(ChaosReport::ms).collect(java.util.stream.Collectors.joining(", ")));
        out.printf("  machine           cores idle in each %s from the start of traffic: %s%n", ms(warmUpMs),
                cpuIdlePctByWindow.isEmpty() ? "n/a (no /proc/stat)" : cpuIdlePctByWindow.stream()
                        .map(p -> p < 0 ? "n/a" : p + "%").collect(java.util.stream.Collectors.joining(", ")));
        out.printf("  CPU-seconds       from the start of traffic, by this run's processes%s: %s%n",
                cpuSecondsByRole.containsKey(DatabaseCpu.ROLE) ? " and its PostgreSQL server"
                        : " (PostgreSQL not counted: not seen on this machine)",
                cpuSecondsByRole.isEmpty() ? "n/a" : cpuSecondsByRole.entrySet().stream()
                        .map(e -> String.format(java.util.Locale.ROOT, "%s %.1f%s", e.getKey(), e.getValue(),
                                processesByRole.containsKey(e.getKey()) ? " (" + processesByRole.get(e.getKey())
                                        + (processesByRole.get(e.getKey()) == 1 ? " process)" : " processes)") : ""))
                        .collect(java.util.stream.Collectors.joining(", ")));
        out.println("  violations");
        for (String key : CheckReport.KEYS) {
            out.printf("    %-18s %d%n", key, check.violations().get(key));
            List<String> examples = check.details().getOrDefault(key, List.of());
            examples.forEach(e -> out.printf("      e.g. %s%n", e));
        }
        if (Boolean.FALSE.equals(naiveDamageSeen())) {
            out.println("  NAIVE MODE SHOWED NO DUPLICATES AND ORPHANS: the checker or the faults are broken");
        }
        out.printf("  result            %s%n", "naive".equals(mode)
                ? (Boolean.TRUE.equals(naiveDamageSeen()) ? "NAIVE STEPS BROKE THE WORLD, AS THEY MUST" : "CHECKER BLIND")
                : clean() ? "CONVERGED" : "NOT CONVERGED");
        out.printf("  run directory     %s%n", runDir);
    }

    public void writeJson(Path file) throws IOException {
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), this);
    }

    private static String ms(long millis) {
        return millis < 0 ? "n/a" : String.format("%.1fs", millis / 1000.0);
    }

    private static String line(Map<String, ? extends Number> m) {
        StringBuilder s = new StringBuilder();
        m.forEach((k, v) -> s.append(s.length() == 0 ? "" : ", ").append(k).append(' ').append(v));
        return s.toString();
    }
}
