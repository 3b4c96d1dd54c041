package dev.converge.proof.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code bench start}: its figures from known samples, and one round end to end on a real PostgreSQL with
 * real child JVMs, each side finishing every job. PostgreSQL as in {@link ScaleBenchTest}.
 */
class StartBenchTest {
    private static final String SERVER = ScaleBenchTest.SERVER;
    private static final String USER = ScaleBenchTest.USER;

    @BeforeAll
    static void postgres() {
        ScaleBenchTest.postgres();
    }

    /**
     * Launched at 1,000 (wall clock): the first job at 1,500, then 100 jobs per 100 ms until 2,500 and 1,000
     * per 100 ms until 4,500, the last. So: first job 500 ms after the launch, best second 10,000 jobs/s, all
     * done at 3,500 ms; the first second within 90% of the best (9,000 jobs) starts at 1,400 ms, from 901 to
     * 10,001 jobs.
     */
    @Test
    void figuresFromSamples() {
        StringBuilder pairs = new StringBuilder("1000:0,1400:0,");
        long n = 0;
        for (long t = 1500; t <= 2500; t += 100) {
            n += t == 1500 ? 1 : 100;
            pairs.append(t).append(':').append(n).append(',');
        }
        for (long t = 2600; t <= 4500; t += 100) {
            n += 1000;
            pairs.append(t).append(':').append(n).append(',');
        }
        pairs.append(4600).append(':').append(n);
        StartBench.Run run = StartBench.figures(1, true, 1000, pairs.toString());
        assertThat(run.firstJobMs()).isEqualTo(500);
        assertThat(run.doneMs()).isEqualTo(3500);
        assertThat(run.jobs()).isEqualTo(n);
        assertThat(run.steadyRate()).isEqualTo(10_000.0);
        assertThat(run.steadyAtMs()).isEqualTo(1400);
    }

    @Test
    void refusesWhatCannotBeMeasured() {
        assertThatThrownBy(() -> new StartBench.Options(SERVER, USER, 10, 4, 1, List.of()))
                .hasMessageContaining("--jobs must be between 1000");
        assertThatThrownBy(() -> new StartBench.Options(SERVER, USER, 5000, 0, 1, List.of()))
                .hasMessageContaining("--workers");
        assertThatThrownBy(() -> new StartBench.Options(SERVER, USER, 5000, 4, 1, List.of("Xmx64m")))
                .hasMessageContaining("starting with '-'");
        assertThatThrownBy(() -> StartBench.figures(1, true, 0, "10:0,20:0"))
                .hasMessageContaining("no job was finished");
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void eachSideStartsColdAndFinishesEveryJob() throws Exception {
        StartBench.Options options = new StartBench.Options(SERVER, USER, 3000, 4, 1, List.of("-Xmx256m"));
        List<StartBench.Run> runs = new StartBench(options, msg -> { }).run();
        assertThat(runs).extracting(StartBench.Run::engine).containsExactly(true, false);
        for (StartBench.Run r : runs) {
            assertThat(r.jobs()).isEqualTo(3000);
            assertThat(r.firstJobMs()).as("a JVM's start comes first").isGreaterThan(50);
            assertThat(r.steadyAtMs()).isBetween(r.firstJobMs(), r.doneMs());
            assertThat(r.steadyRate()).isPositive();
        }
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        StartBench.print(options, runs, new PrintStream(printed, true, StandardCharsets.UTF_8));
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("median engine").contains("median reference")
                .contains("engine/reference");
    }
}
