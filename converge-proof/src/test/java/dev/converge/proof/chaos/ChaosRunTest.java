package dev.converge.proof.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.converge.proof.check.CheckReport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A small chaos run in both modes, for real: PostgreSQL, an API server, two worker JVMs
 * SIGKILLed every couple of seconds (one paused past its lease now and then), halts at every
 * crash point, leaf faults of every type. The safe steps must converge with no violation at all;
 * the naive steps must be caught making duplicates and orphans — if they are not, the checker
 * or the faults are broken, and this test says so.
 *
 * <p>PostgreSQL at CONVERGE_PG_URL (default 127.0.0.1:5432, user root); unreachable fails the
 * test when CI=true and skips it elsewhere.
 */
class ChaosRunTest {
    private static final String SERVER = System.getenv().getOrDefault("CONVERGE_PG_URL",
            "jdbc:postgresql://127.0.0.1:5432/postgres");
    private static final String USER = System.getenv().getOrDefault("CONVERGE_PG_USER", "root");

    @BeforeAll
    static void postgres() {
        if (!ScratchPostgres.reachable(SERVER, USER)) {
            String why = "PostgreSQL is unreachable at " + SERVER + " as " + USER;
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                fail(why + " and CI=true: the chaos run must run in CI");
            }
            Assumptions.abort(why + "; skipping the chaos run outside CI");
        }
    }

    /**
     * Small enough for CI, the same run in both modes. A flow that the attacks leave stuck needs its
     * deadline to pass before the watchdog fails it; 40 s after the last request still leaves the
     * run room to tear it down and reach quiescence well before its own bound, however long the JVMs
     * took to start. The naive steps duplicate a license only when its create meets one of the four
     * faults that strike after the leaf created it (4/7 of the rate): at 24 sites and 30% that missed
     * every site about once in a hundred runs; at 32 sites and 40%, about once in four thousand,
     * before the kills add their own chances.
     */
    private static ChaosSettings small(boolean naive) {
        // the naive run's damage is counted, not guaranteed: its duplicates come from a create retried
        // after a fault that hit it after the effect (the license leaf) or a welcome resent, 1-7 in 32
        // sites and, once in a while, none; 48 sites make a run without any the rare exception
        return ChaosSettings.newBuilder().sites(naive ? 48 : 32).workers(2).concurrency(4).seed(7)
                .killEvery(Duration.ofMillis(2000), Duration.ofMillis(2500)).pauseEvery(4)
                .faultRate(0.4).crashHits(1).naive(naive).traffic(Duration.ofSeconds(12)).deleteShare(0.3)
                .flowDeadline(Duration.ofSeconds(40)).lease(Duration.ofSeconds(3)).maxDuration(Duration.ofSeconds(110))
                .db(SERVER, USER).runDir(Path.of("target", "chaos", naive ? "naive" : "safe"))
                // the safe run's sites have a short trial: a share is subscribed, the others expire under attack
                .trial(naive ? null : Duration.ofSeconds(25)).build();
    }

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void safeStepsConvergeUnderAttack() throws Exception {
        ChaosReport report = ChaosRun.run(small(false), System.out);
        report.print(System.out);

        assertThat(report.violations()).as("violations (details: %s)", report.check().details())
                .containsOnlyKeys(CheckReport.KEYS).allSatisfy((key, count) -> assertThat(count).as(key).isZero());
        assertThat(report.quiescent()).as("quiescent: %s", report.pendingAtCheck()).isTrue();
        assertThat(report.requests().get("sites_accepted")).isEqualTo(32);
        assertThat(report.check().trials().expired()).as("trials that ended during the run").isPositive();
        assertThat(report.check().trials().subscribed()).as("sites subscribed in time").isPositive();
        assertThat(report.kills()).as("workers were SIGKILLed").isPositive();
        assertThat(report.faultHits().values().stream().mapToLong(Long::longValue).sum()).as("leaf faults hit").isPositive();
        assertThat(report.exitCode()).isZero();
        if ((SERVER.contains("//127.0.0.1") || SERVER.contains("//localhost")) && Files.isReadable(Path.of("/proc/self/stat"))) {
            // the server is on this machine: the report counts its CPU beside the run's own processes'
            assertThat(report.cpuSecondsByRole()).as("CPU-seconds by role").containsKey(DatabaseCpu.ROLE);
            assertThat(report.cpuSecondsByRole().get(DatabaseCpu.ROLE)).as("the server's CPU-seconds").isPositive();
            assertThat(report.cpuSecondsByRole().get("workers")).as("the workers' CPU-seconds").isPositive();
        }
    }

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void naiveStepsAreCaughtMakingDuplicatesAndOrphans() throws Exception {
        ChaosReport report = ChaosRun.run(small(true), System.out);
        report.print(System.out);

        assertThat(report.naiveDamageSeen()).as("naive mode must show duplicates and orphans, or the checker or the "
                + "faults are broken: %s", report.violations()).isTrue();
        assertThat(report.violations().get("duplicated")).isPositive();
        assertThat(report.violations().get("orphans")).isPositive();
        assertThat(report.exitCode()).isEqualTo(1);
    }
}
