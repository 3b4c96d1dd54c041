package dev.converge.proof.chaos;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The CPU time this run's own processes spent from a moment on (the start of traffic), by role:
 * the workers, the API server, the leaves, the mail server, and this supervisor with its client.
 * Each child is sampled once a second while it lives, so a process that dies loses up to a second
 * of its last CPU (the figures are floors); one started after the moment counts from its birth, its
 * JVM start included. PostgreSQL's backends are not this process's children: {@link DatabaseCpu} counts them.
 */
final class ChildCpu implements AutoCloseable {
    /** The CPU seen of one process: at the moment (or its birth after it) and at its last sample. */
    private record Seen(String role, long fromNanos, long lastNanos) {
    }

    private final long selfFrom;
    /** The CPU of the children alive at the moment, then; any other child was born after it. */
    private final Map<Long, Long> atTheMoment = new HashMap<>();
    private final Map<Long, Seen> seen = new HashMap<>();
    private final Thread sampler;

    private ChildCpu() {
        this.selfFrom = cpuNanos(ProcessHandle.current());
        // by pid, not by start time: the kernel's start times are whole seconds after boot, too coarse here
        ProcessHandle.current().descendants().forEach(p -> atTheMoment.put(p.pid(), Math.max(0, cpuNanos(p))));
        sampler = new Thread(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    sampleNow();
                    Thread.sleep(1000);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "chaos-child-cpu");
        sampler.setDaemon(true);
    }

    /** Samples this process's descendants once a second from now until {@link #close()}. */
    static ChildCpu start() {
        ChildCpu c = new ChildCpu();
        c.sampler.start();
        return c;
    }

    private void sampleNow() {
        ProcessHandle.current().descendants().forEach(p -> {
            long cpu = cpuNanos(p);
            if (cpu < 0) {
                return;
            }
            synchronized (seen) {
                Seen s = seen.get(p.pid());
                // a child first seen between its fork and its exec still shows the launcher's command line: as
                // long as its role is unknown, it is asked again
                String role = s != null && !s.role().equals("other") ? s.role() : role(p);
                if (s == null) {
                    seen.put(p.pid(), new Seen(role, atTheMoment.getOrDefault(p.pid(), 0L), cpu));
                } else {
                    seen.put(p.pid(), new Seen(role, s.fromNanos(), Math.max(s.lastNanos(), cpu)));
                }
            }
        });
    }

    private static String role(ProcessHandle p) {
        String role = role(p.info().arguments().map(List::of).orElse(List.of()));
        // the JDK's view of a long command line may be cut short
        return role.equals("other") ? role(commandLine(p.pid())) : role;
    }

    /** A process's whole command line from {@code /proc}, or nothing where there is none. */
    private static List<String> commandLine(long pid) {
        try {
            byte[] raw = java.nio.file.Files.readAllBytes(java.nio.file.Path.of("/proc", Long.toString(pid), "cmdline"));
            return List.of(new String(raw, java.nio.charset.StandardCharsets.UTF_8).split("\0"));
        } catch (java.io.IOException | RuntimeException e) {
            return List.of();
        }
    }

    private static long cpuNanos(ProcessHandle p) {
        return p.info().totalCpuDuration().map(Duration::toNanos).orElse(-1L);
    }

    /** What a child is, from its command line: the chaos node's subcommand, or the class-data archive's run. */
    static String role(List<String> args) {
        if (args.stream().anyMatch(a -> a.startsWith("-XX:ArchiveClassesAtExit"))) {
            return "class-data archive";
        }
        int main = args.indexOf(ChaosNode.class.getName());
        String sub = main >= 0 && main + 1 < args.size() ? args.get(main + 1) : "";
        return switch (sub) {
            case "worker" -> "workers";
            case "server" -> "API server";
            case "leafsim" -> "leaves";
            case "mailsim" -> "mail server";
            default -> "other";
        };
    }

    /** CPU-seconds by role since the moment, this process's own under "supervisor and client"; by name. */
    Map<String, Double> cpuSecondsByRole() {
        sampleNow();
        Map<String, Double> out = new TreeMap<>();
        synchronized (seen) {
            for (Seen s : seen.values()) {
                out.merge(s.role(), (s.lastNanos() - s.fromNanos()) / 1e9, Double::sum);
            }
        }
        out.put("supervisor and client", (cpuNanos(ProcessHandle.current()) - selfFrom) / 1e9);
        return out;
    }

    /** How many processes of each role were seen since the moment. */
    Map<String, Integer> processesByRole() {
        Map<String, Integer> out = new TreeMap<>();
        synchronized (seen) {
            seen.values().forEach(s -> out.merge(s.role(), 1, Integer::sum));
        }
        return out;
    }

    @Override
    public void close() {
        sampler.interrupt();
    }
}
