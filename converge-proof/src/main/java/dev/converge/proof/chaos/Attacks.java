package dev.converge.proof.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * What the run does to the service while the client works: at a seeded interval, SIGKILL of a
 * random worker (the API server too, every fifth attack, with {@code --kill-api}); every n-th
 * attack instead a SIGSTOP of a worker for longer than its lease, so it wakes up fenced and must
 * find out before it writes; optionally one PostgreSQL restart halfway through; optionally a
 * rolling deploy of the workers to a next release.
 */
final class Attacks implements AutoCloseable {
    private final ChaosSettings settings;
    private final Fleet fleet;
    private final Consumer<String> say;
    private final Random random;
    private final AtomicInteger kills = new AtomicInteger();
    private final AtomicInteger apiKills = new AtomicInteger();
    private final AtomicInteger pauses = new AtomicInteger();
    private final AtomicInteger pgRestarts = new AtomicInteger();
    private final AtomicInteger rolled = new AtomicInteger();
    /** How long a worker stopped by the rolling deploy may drain before it is killed. */
    private static final long GRACEFUL_STOP_MS = 20_000;
    private final List<ChildJvm> paused = new ArrayList<>();
    private final Thread thread;
    private volatile boolean stopped;
    private long startedAt;
    private Duration window = Duration.ZERO;

    Attacks(ChaosSettings settings, Fleet fleet, Consumer<String> say) {
        this.settings = settings;
        this.fleet = fleet;
        this.say = say;
        this.random = new Random(settings.seed() * 17 + 3);
        this.thread = new Thread(this::attack, "chaos-attacks");
        thread.setDaemon(true);
    }

    /**
     * @param expected how long the attacks are expected to last (the PostgreSQL restart comes halfway)
     * @param traffic  how long the client sends requests (a rolling deploy is spread over it)
     */
    void start(Duration expected, Duration traffic) {
        this.window = expected;
        this.startedAt = System.nanoTime();
        thread.start();
        if (settings.rollingDeploy()) {
            Thread roll = new Thread(() -> roll(traffic), "chaos-rolling-deploy");
            roll.setDaemon(true);
            roll.start();
        }
    }

    /**
     * The rolling deploy: worker after worker, evenly over the traffic, is stopped as a deploy stops
     * a node (SIGTERM, the shutdown grace) and comes back as the next release. A slot that is down
     * at its turn (just killed) is tried again until its incarnation of the previous release is gone.
     */
    private void roll(Duration traffic) {
        int n = fleet.workers().size();
        long step = traffic.toMillis() / (n + 1);
        try {
            for (int w = 1; w <= n && !stopped; w++) {
                Thread.sleep(step);
                while (!stopped && !fleet.upgrade(w, GRACEFUL_STOP_MS)) {
                    Thread.sleep(200);
                }
                if (!stopped) {
                    rolled.incrementAndGet();
                    say.accept("rolling deploy: worker-" + w + " stopped (SIGTERM) and restarting as the next release");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    int rolled() {
        return rolled.get();
    }

    private void attack() {
        int n = 0;
        boolean pgDone = false;
        try {
            while (!stopped) {
                long min = settings.killEveryMin().toMillis();
                long max = settings.killEveryMax().toMillis();
                Thread.sleep(min + (max > min ? (long) (random.nextDouble() * (max - min)) : 0));
                if (stopped) {
                    return;
                }
                n++;
                if (settings.pgRestart() && !pgDone && System.nanoTime() - startedAt > window.toNanos() / 2) {
                    pgDone = true;
                    restartPostgres();
                } else if (settings.killApi() && n % 5 == 0) {
                    if (fleet.api().kill()) {
                        apiKills.incrementAndGet();
                        say.accept("SIGKILL api");
                    }
                } else if (settings.pauseEvery() > 0 && n % settings.pauseEvery() == 0) {
                    pauseOne();
                } else {
                    killOne();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Slot pick() {
        List<Slot> up = fleet.workers().stream().filter(Slot::attackable).toList();
        return up.isEmpty() ? null : up.get(random.nextInt(up.size()));
    }

    private void killOne() {
        Slot w = pick();
        if (w != null && w.kill()) {
            kills.incrementAndGet();
            say.accept("SIGKILL " + w.name());
        }
    }

    /** Paused past its lease: its jobs are delivered again elsewhere while it sleeps. */
    private void pauseOne() {
        Slot w = pick();
        ChildJvm child = w == null ? null : w.pause();
        if (child == null) {
            return;
        }
        pauses.incrementAndGet();
        long ms = settings.lease().toMillis() * 3 / 2 + 500;
        say.accept("SIGSTOP " + w.name() + " for " + ms + "ms (lease " + settings.lease().toMillis() + "ms)");
        synchronized (paused) {
            paused.add(child);
        }
        Thread waker = new Thread(() -> {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            child.resume();
            synchronized (paused) {
                paused.remove(child);
            }
        }, "chaos-waker");
        waker.setDaemon(true);
        waker.start();
    }

    private void restartPostgres() {
        List<String> command = pgRestartCommand();
        say.accept("restarting PostgreSQL: " + String.join(" ", command));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(fleet.runDir().resolve("pg-restart.log").toFile()).start();
            if (p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0) {
                pgRestarts.incrementAndGet();
                say.accept("PostgreSQL restarted");
            } else {
                p.destroyForcibly();
                say.accept("PostgreSQL restart failed; see " + fleet.runDir().resolve("pg-restart.log"));
            }
        } catch (IOException e) {
            say.accept("PostgreSQL restart failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Restarts the cluster the run's database is on: found by its port in pg_lsclusters. */
    private List<String> pgRestartCommand() {
        if (settings.pgRestartCommand() != null) {
            return List.of("sh", "-c", settings.pgRestartCommand());
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^jdbc:postgresql://[^/:]+(?::(\\d+))?")
                .matcher(settings.dbUrl());
        String port = m.find() && m.group(1) != null ? m.group(1) : "5432";
        try {
            Process p = new ProcessBuilder("pg_lsclusters", "--no-header").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            p.waitFor(10, TimeUnit.SECONDS);
            for (String line : out.split("\n")) {
                String[] f = line.trim().split("\\s+");
                if (f.length >= 3 && f[2].equals(port)) {
                    return List.of("pg_ctlcluster", "--skip-systemctl-redirect", f[0], f[1], "restart");
                }
            }
        } catch (IOException e) {
            say.accept("pg_lsclusters failed (" + e.getMessage() + "); restarting cluster main");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        String version = "15";
        try (var dirs = Files.list(Path.of("/etc/postgresql"))) {
            version = dirs.map(d -> d.getFileName().toString()).filter(v -> v.matches("\\d+(\\.\\d+)?"))
                    .max(java.util.Comparator.comparingDouble(Double::parseDouble)).orElse(version);
        } catch (IOException e) {
            say.accept("cannot read /etc/postgresql (" + e.getMessage() + "); assuming version " + version);
        }
        return List.of("pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "restart");
    }

    /** Stops attacking, and wakes every paused worker. */
    @Override
    public void close() {
        stopped = true;
        thread.interrupt();
        try {
            thread.join(70_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (paused) {
            paused.forEach(ChildJvm::resume);
            paused.clear();
        }
    }

    int kills() {
        return kills.get();
    }

    int apiKills() {
        return apiKills.get();
    }

    int pauses() {
        return pauses.get();
    }

    int pgRestarts() {
        return pgRestarts.get();
    }
}
