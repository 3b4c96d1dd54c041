package dev.converge.proof.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class CpuIdleTest {

    @Test
    void theFirstLineOfProcStatGivesIdleWithIoWaitAndTheTotalWithoutGuests() {
        // cpu user nice system idle iowait irq softirq steal guest guest_nice
        List<String> stat = List.of("cpu  100 5 50 800 20 3 2 10 40 0", "cpu0 50 2 25 400 10 1 1 5 20 0", "intr 123");

        long[] c = CpuIdle.parse(stat).orElseThrow();

        assertThat(c[0]).isEqualTo(820); // idle + iowait
        assertThat(c[1]).isEqualTo(990); // user..steal; guest is inside user already
        assertThat(CpuIdle.parse(List.of("intr 1"))).isEmpty();
    }

    @Test
    void eachWindowGetsTheIdleShareOfTheTicksInIt() {
        Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
        // 0-10 s: fully busy; 10-20 s: half idle; 20-25 s: fully idle (the last, partial window)
        List<CpuIdle.Sample> s = List.of(
                new CpuIdle.Sample(t0.minusMillis(200), 0, 0),
                new CpuIdle.Sample(t0.plusSeconds(5), 0, 1000),
                new CpuIdle.Sample(t0.plusSeconds(10), 0, 2000),
                new CpuIdle.Sample(t0.plusSeconds(20), 1000, 4000),
                new CpuIdle.Sample(t0.plusSeconds(25), 2000, 5000));

        assertThat(CpuIdle.byWindow(s, t0, Duration.ofSeconds(10))).containsExactly(0, 50, 100);
    }

    @Test
    void aWindowTheSamplesDoNotSpanIsNotGuessed() {
        Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
        List<CpuIdle.Sample> s = List.of(new CpuIdle.Sample(t0.plusSeconds(15), 0, 100),
                new CpuIdle.Sample(t0.plusSeconds(25), 50, 200));

        assertThat(CpuIdle.byWindow(s, t0, Duration.ofSeconds(10))).containsExactly(-1, -1, 50);
        assertThat(CpuIdle.byWindow(List.of(), t0, Duration.ofSeconds(10))).isEmpty();
    }

    @Test
    void aBusyMachineReadsLessIdleThanAQuietOne() throws Exception {
        if (!Files.isReadable(Path.of("/proc/stat"))) {
            return; // not Linux: the report says n/a
        }
        int cores = Runtime.getRuntime().availableProcessors();
        Instant start = Instant.now();
        List<Integer> quiet;
        List<Integer> busy;
        try (CpuIdle idle = CpuIdle.start()) {
            Thread.sleep(2_200);
            quiet = idle.idlePercentByWindow(start, Duration.ofSeconds(2));
        }
        Instant busyStart = Instant.now();
        try (CpuIdle idle = CpuIdle.start()) {
            Thread[] spinners = new Thread[cores];
            for (int i = 0; i < cores; i++) {
                spinners[i] = new Thread(() -> {
                    long end = System.nanoTime() + 2_200_000_000L;
                    long x = 0;
                    while (System.nanoTime() < end) {
                        x += System.nanoTime() % 7;
                    }
                    if (x == 42) {
                        System.out.print("");
                    }
                });
                spinners[i].start();
            }
            for (Thread t : spinners) {
                t.join();
            }
            busy = idle.idlePercentByWindow(busyStart, Duration.ofSeconds(2));
        }

        assertThat(quiet).isNotEmpty();
        assertThat(busy).isNotEmpty();
        // every core spun for the whole window: next to nothing idle, whatever else the machine runs
        assertThat(busy.get(0)).isBetween(0, 25);
        assertThat(quiet.get(0)).isBetween(0, 100).isGreaterThanOrEqualTo(busy.get(0) - 10);
    }
}
