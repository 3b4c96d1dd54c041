package dev.converge.proof.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * How idle the machine's cores were over a run, read from {@code /proc/stat} once a second (Linux;
 * elsewhere nothing is sampled). A run's time to converge follows the CPU the attack leaves the
 * service as much as the service itself: a run whose cores sat near 0 % idle through the attack
 * (every kill starts a JVM) measures that machine, and this says so beside the figures.
 */
final class CpuIdle implements AutoCloseable {
    private static final Path PROC_STAT = Path.of("/proc/stat");

    /** The machine's CPU counters at one moment: idle (with I/O wait) and all, in clock ticks. */
    record Sample(Instant at, long idle, long total) {
    }

    private final List<Sample> samples = new ArrayList<>();
    private final Thread sampler;

    private CpuIdle(Duration every) {
        sampler = new Thread(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    sampleNow();
                    Thread.sleep(every.toMillis());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "chaos-cpu-idle");
        sampler.setDaemon(true);
    }

    /** Samples once a second from now until {@link #close()}. */
    static CpuIdle start() {
        CpuIdle c = new CpuIdle(Duration.ofSeconds(1));
        c.sampler.start();
        return c;
    }

    private void sampleNow() {
        try {
            Optional<long[]> counters = parse(Files.readAllLines(PROC_STAT));
            counters.ifPresent(c -> {
                synchronized (samples) {
                    samples.add(new Sample(Instant.now(), c[0], c[1]));
                }
            });
        } catch (IOException | RuntimeException e) {
            // not Linux, or /proc unreadable: no samples, and the report says n/a
        }
    }

    /**
     * The idle and total ticks of all cores from {@code /proc/stat}'s first line ({@code cpu user nice
     * system idle iowait irq softirq steal ...}); guest time is already inside user and nice.
     */
    static Optional<long[]> parse(List<String> procStat) {
        for (String line : procStat) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 5 && f[0].equals("cpu")) {
                long total = 0;
                for (int i = 1; i <= Math.min(8, f.length - 1); i++) {
                    total += Long.parseLong(f[i]);
                }
                long idle = Long.parseLong(f[4]) + (f.length > 5 ? Long.parseLong(f[5]) : 0);
                return Optional.of(new long[] {idle, total});
            }
        }
        return Optional.empty();
    }

    /**
     * The percentage of idle core time in each {@code window} from {@code start} up to the last sample,
     * -1 for a window the samples do not span (fewer than two in it or around it).
     */
    List<Integer> idlePercentByWindow(Instant start, Duration window) {
        List<Sample> s;
        synchronized (samples) {
            s = List.copyOf(samples);
        }
        return byWindow(s, start, window);
    }

    static List<Integer> byWindow(List<Sample> s, Instant start, Duration window) {
        List<Integer> out = new ArrayList<>();
        if (s.isEmpty()) {
            return out;
        }
        Instant last = s.get(s.size() - 1).at();
        for (Instant from = start; from.isBefore(last); from = from.plus(window)) {
            Sample a = atOrBefore(s, from);
            Sample b = atOrBefore(s, min(from.plus(window), last));
            if (a == null || b == null || b.total() <= a.total()) {
                out.add(-1);
            } else {
                out.add((int) Math.round(100.0 * (b.idle() - a.idle()) / (b.total() - a.total())));
            }
        }
        return out;
    }

    /** The last sample taken at or before {@code t}, or the first one when it follows {@code t} by under a second. */
    private static Sample atOrBefore(List<Sample> s, Instant t) {
        Sample found = null;
        for (Sample x : s) {
            if (!x.at().isAfter(t)) {
                found = x;
            }
        }
        if (found == null && Duration.between(t, s.get(0).at()).compareTo(Duration.ofSeconds(1)) <= 0) {
            found = s.get(0);
        }
        return found;
    }

    private static Instant min(Instant a, Instant b) {
        return a.isBefore(b) ? a : b;
    }

    @Override
    public void close() {
        sampler.interrupt();
    }
}
