package dev.converge.proof.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * One role in the run (the API server, worker 2, the leaves, ...) and the child process that
 * currently plays it. A restartable slot starts a new incarnation after a pause whenever its
 * process ends — SIGKILLed by the attacks or halted at a crash point — until the run stops.
 *
 * <p>A worker slot, and the API server's, keeps a warm spare: a JVM already started and connected, standing by
 * ({@code worker --standby}, {@code server --standby}) until told to work. On a machine where a JVM takes 5-20 s to start,
 * restarting cold after every kill would leave most workers down most of the time and the attack
 * would measure JVM start-up; with a spare, a killed worker is replaced by a fresh process (new
 * node id, nothing shared with the dead one) about a second after the pause.
 */
final class Slot {
    private final String name;
    private final Path runDir;
    private final IntFunction<List<String>> args;
    private final Map<String, String> env;
    private final Predicate<ChildJvm> probe;
    private final boolean restartable;
    private final boolean warmSpare;
    private final Supplier<Duration> restartPause;
    private final Consumer<String> say;
    private final Consumer<ChildJvm> ended;
    private final List<Path> logs = new CopyOnWriteArrayList<>();
    private final AtomicInteger restarts = new AtomicInteger();
    private final AtomicInteger selfExits = new AtomicInteger();
    private final Object lock = new Object();
    private volatile ChildJvm current;
    private ChildJvm spare;
    private volatile boolean ready;
    private volatile boolean stopping;
    private int spawned;
    private volatile List<String> jvmOptions = List.of();

    /**
     * @param args      the subcommand and flags of the n-th process started for this slot (from 1)
     * @param probe     whether an incarnation is ready (a health endpoint answers, a log line appeared)
     * @param warmSpare keep a {@code --standby} spare started ahead (workers only)
     * @param ended     told of every process of this slot that ended
     */
    Slot(String name, Path runDir, IntFunction<List<String>> args, Map<String, String> env, Predicate<ChildJvm> probe,
            boolean restartable, boolean warmSpare, Supplier<Duration> restartPause, Consumer<String> say,
            Consumer<ChildJvm> ended) {
        this.name = name;
        this.runDir = runDir;
        this.args = args;
        this.env = env;
        this.probe = probe;
        this.restartable = restartable;
        this.warmSpare = warmSpare;
        this.restartPause = restartPause;
        this.say = say;
        this.ended = ended;
    }

    String name() {
        return name;
    }

    /** Extra JVM options for the processes started from now on (the class-data archive). */
    void jvmOptions(List<String> options) {
        this.jvmOptions = List.copyOf(options);
    }

    void start() {
        launch();
        if (restartable) {
            Thread keeper = new Thread(this::keep, "chaos-keeper-" + name);
            keeper.setDaemon(true);
            keeper.start();
        }
    }

    private ChildJvm spawn() {
        spawned++;
        Path log = runDir.resolve(name + "." + spawned + ".log");
        List<String> a = args.apply(spawned);
        try {
            ChildJvm child = ChildJvm.start(name, log, warmSpare ? withStandby(a) : a, env, warmSpare, jvmOptions);
            logs.add(log);
            return child;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    private static List<String> withStandby(List<String> a) {
        List<String> out = new java.util.ArrayList<>(a);
        out.add("--standby");
        return out;
    }

    private void launch() {
        synchronized (lock) {
            if (stopping) {
                return;
            }
            ready = false;
            ChildJvm next;
            if (spare != null && spare.alive()) {
                next = spare;
            } else {
                if (spare != null) {
                    ended.accept(spare);
                }
                next = spawn();
            }
            spare = null;
            if (warmSpare) {
                next.go();
            }
            current = next;
            Thread watch = new Thread(() -> watchReadiness(next), "chaos-ready-" + name);
            watch.setDaemon(true);
            watch.start();
        }
    }

    /** Marks the incarnation ready when its probe says so; only then starts the next spare (not to slow it down). */
    private void watchReadiness(ChildJvm child) {
        while (!stopping && child.alive() && current == child) {
            if (probe.test(child)) {
                ready = true;
                synchronized (lock) {
                    if (warmSpare && spare == null && !stopping) {
                        spare = spawn();
                    }
                }
                return;
            }
            sleep(100);
        }
    }

    /** Starts the next incarnation after a pause each time one ends, until the run stops. */
    private void keep() {
        while (!stopping) {
            ChildJvm child = current;
            try {
                child.process().waitFor();
            } catch (InterruptedException e) {
                return;
            }
            ended.accept(child);
            if (stopping) {
                return;
            }
            if (!child.killedByUs()) {
                selfExits.incrementAndGet();
                say.accept(name + " exited by itself (code " + child.process().exitValue() + ")");
            }
            sleep(restartPause.get().toMillis());
            if (stopping) {
                return;
            }
            try {
                launch();
                restarts.incrementAndGet();
            } catch (UncheckedIOException e) {
                say.accept(e.getMessage() + ": " + e.getCause().getMessage());
                sleep(1000);
            }
        }
    }

    /** Waits until the current incarnation is ready; fails with its log if it dies or takes too long. */
    void awaitReady(Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        while (!ready) {
            ChildJvm child = current;
            if (!restartable && !child.alive()) {
                throw new IllegalStateException(name + " exited (" + child.process().exitValue() + ") before it was ready; "
                        + "its log " + child.log() + ":\n" + tail(child.output()));
            }
            if (System.nanoTime() > end) {
                throw new IllegalStateException(name + " was not ready within " + timeout.toSeconds() + "s; its log "
                        + child.log() + ":\n" + tail(child.output()));
            }
            sleep(100);
        }
    }

    /** Up and not paused: fair game for an attack. */
    boolean attackable() {
        ChildJvm child = current;
        return ready && child.alive() && !child.paused() && !stopping;
    }

    /** SIGKILL of the current incarnation (the keeper starts the next); false if it was not up. */
    boolean kill() {
        synchronized (lock) {
            if (!attackable()) {
                return false;
            }
            ready = false;
            current.kill();
            return true;
        }
    }

    /**
     * Stops the current incarnation gracefully (SIGTERM, then SIGKILL after {@code graceMillis})
     * and discards the warm spare, so that the keeper starts a new one from the arguments as they
     * are now; false if it was not up.
     */
    boolean replace(long graceMillis) {
        ChildJvm child;
        ChildJvm standby;
        synchronized (lock) {
            if (!attackable()) {
                return false;
            }
            ready = false;
            child = current;
            standby = spare;
            spare = null;
        }
        if (standby != null) {
            standby.kill(); // of the previous release, and it never worked
            ended.accept(standby);
        }
        child.stop(graceMillis);
        return true;
    }

    /** SIGSTOP; returns the paused incarnation, to be woken with {@link ChildJvm#resume()}; null if not up. */
    ChildJvm pause() {
        synchronized (lock) {
            if (!attackable()) {
                return null;
            }
            ChildJvm child = current;
            child.pause();
            return child.paused() ? child : null;
        }
    }

    void stop(long graceMillis) {
        ChildJvm child;
        ChildJvm standby;
        synchronized (lock) {
            stopping = true;
            child = current;
            standby = spare;
            spare = null;
        }
        if (standby != null) {
            standby.kill(); // it never worked: nothing to finish
        }
        if (child != null) {
            child.stop(graceMillis);
        }
    }

    int restarts() {
        return restarts.get();
    }

    int selfExits() {
        return selfExits.get();
    }

    List<Path> logs() {
        return List.copyOf(logs);
    }

    private static String tail(String s) {
        return s.length() <= 4000 ? s : "..." + s.substring(s.length() - 4000);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
