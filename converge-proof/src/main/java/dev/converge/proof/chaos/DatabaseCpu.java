package dev.converge.proof.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * The CPU time of the PostgreSQL server a run uses, from a moment on, when that server runs on this
 * machine: its postmaster's own, that of every process it started and has reaped (a backend whose
 * connection closed, a worker's connections after a SIGKILL), and that of its children still alive.
 * The kernel keeps the reaped children's time in the postmaster's {@code /proc} entry, so nothing a
 * backend spent is lost when it exits, which a sampler of live backends would miss.
 *
 * <p>The server is found through a backend of it ({@code pg_backend_pid()}): its parent is the
 * postmaster. A restart of the server starts a new postmaster; the old one's total up to its last
 * sample is kept and the new one is found again through a new connection (the CPU between that last
 * sample and the stop is lost: a floor, as for the run's own children). Elsewhere (another host, a
 * container, no {@code /proc}) there is no figure.
 */
public final class DatabaseCpu implements AutoCloseable {
    /** Clock ticks per second in {@code /proc}: the kernel's USER_HZ, 100 on every architecture Linux runs PostgreSQL on. */
    static final int TICKS_PER_SECOND = 100;
    /** Its name among the roles of the run's report. */
    static final String ROLE = "PostgreSQL";
    private static final Path PROC = Path.of("/proc");

    /** A way to reach one backend of the server, alive while {@code whileOpen} reads its process. */
    @FunctionalInterface
    interface Backend {
        /** Opens a connection, gives its backend's pid to {@code whileOpen}, closes it; returns what it read. */
        Optional<long[]> withPid(java.util.function.LongFunction<Optional<long[]>> whileOpen) throws Exception;
    }

    /** One postmaster: its pid and start time (pids are reused), its total at the moment or its birth. */
    private record Postmaster(long pid, long startTicks, long fromTicks) {
    }

    private final Backend backend;
    private final Path proc;
    private final Thread sampler;
    private Postmaster current;
    private long lastTicks;
    /** The CPU of postmasters that have stopped since the moment, up to their last sample. */
    private long banked;

    private DatabaseCpu(Backend backend, Path proc) {
        this.backend = backend;
        this.proc = proc;
        this.sampler = new Thread(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    Thread.sleep(1000);
                    sampleNow();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "chaos-database-cpu");
        sampler.setDaemon(true);
    }

    /**
     * Starts counting now, if the server behind {@code backend} can be seen from here; empty otherwise.
     */
    static Optional<DatabaseCpu> start(Backend backend) {
        return start(backend, PROC);
    }

    /** As {@link #start(Backend)}, reading the process table at {@code proc}. */
    static Optional<DatabaseCpu> start(Backend backend, Path proc) {
        DatabaseCpu c = new DatabaseCpu(backend, proc);
        Postmaster p = c.find(true);
        if (p == null) {
            return Optional.empty();
        }
        synchronized (c) {
            c.current = p;
            c.lastTicks = p.fromTicks();
        }
        c.sampler.start();
        return Optional.of(c);
    }

    /** CPU-seconds the server spent since the moment, as far as seen now. */
    synchronized double cpuSeconds() {
        sampleNow();
        long now = current == null ? 0 : lastTicks - current.fromTicks();
        return (banked + now) / (double) TICKS_PER_SECOND;
    }

    synchronized void sampleNow() {
        if (current != null) {
            OptionalLong t = totalTicks(current);
            if (t.isPresent()) {
                lastTicks = Math.max(lastTicks, t.getAsLong());
                return;
            }
            banked += lastTicks - current.fromTicks(); // stopped (a restart): keep what it spent
            current = null;
        }
        Postmaster p = find(false); // a new postmaster counts from its birth
        if (p != null) {
            current = p;
            lastTicks = p.fromTicks();
            totalTicks(p).ifPresent(t -> lastTicks = t);
        }
    }

    /** The postmaster behind a new backend, with its total now ({@code atTheMoment}) or zero (born since). */
    private Postmaster find(boolean atTheMoment) {
        Optional<long[]> b;
        try {
            // read while its connection is open: a backend exits the moment its connection closes
            b = backend.withPid(this::stat);
        } catch (Exception e) {
            return null; // not answering (restarting): try again at the next sample
        }
        if (b.isEmpty()) {
            return null; // not on this machine, or not in this process namespace
        }
        long pid = b.get()[0];
        Optional<long[]> pm = stat(pid);
        if (pm.isEmpty() || !isPostgres(pid)) {
            return null;
        }
        Postmaster p = new Postmaster(pid, pm.get()[3], 0);
        if (!atTheMoment) {
            return p;
        }
        OptionalLong t = totalTicks(p);
        return t.isPresent() ? new Postmaster(pid, p.startTicks(), t.getAsLong()) : null;
    }

    /** The postmaster's own CPU, its reaped children's, and its live children's; empty once it is gone. */
    private OptionalLong totalTicks(Postmaster p) {
        Optional<long[]> own = stat(p.pid());
        if (own.isEmpty() || own.get()[3] != p.startTicks()) {
            return OptionalLong.empty();
        }
        long total = own.get()[1] + own.get()[2];
        try (Stream<Path> all = Files.list(proc)) {
            total += all.filter(d -> d.getFileName().toString().chars().allMatch(Character::isDigit))
                    .map(d -> stat(Long.parseLong(d.getFileName().toString())))
                    .flatMap(Optional::stream)
                    .filter(s -> s[0] == p.pid())
                    .mapToLong(s -> s[1] + s[2])
                    .sum();
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(total);
    }

    private boolean isPostgres(long pid) {
        try {
            String comm = Files.readString(proc.resolve(pid + "/comm")).trim();
            return comm.startsWith("postgres") || comm.startsWith("postmaster");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** {parent pid, own user+system ticks, reaped children's user+system ticks, start time}; empty if unreadable. */
    private Optional<long[]> stat(long pid) {
        try {
            return parseStat(Files.readString(proc.resolve(pid + "/stat")));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * Parses one {@code /proc/<pid>/stat} line (proc(5)); the command name may hold spaces and parentheses.
     * The fields, in clock ticks where they are times: parent pid, own CPU (user + system), reaped children's
     * CPU, start time; empty if the line is not one.
     */
    public static Optional<long[]> parseStat(String line) {
        int close = line.lastIndexOf(')');
        if (close < 0) {
            return Optional.empty();
        }
        String[] f = line.substring(close + 1).trim().split("\\s+");
        if (f.length < 20) {
            return Optional.empty();
        }
        // after the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14) ... starttime(19)
        return Optional.of(new long[] {Long.parseLong(f[1]), Long.parseLong(f[11]) + Long.parseLong(f[12]),
            Long.parseLong(f[13]) + Long.parseLong(f[14]), Long.parseLong(f[19])});
    }

    @Override
    public void close() {
        sampler.interrupt();
    }
}
