package dev.converge.proof.bench;

import dev.converge.proof.chaos.DatabaseCpu;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Samples the server backends of one database every 20 ms, from the server's own administrative
 * connection: how many connections, how many active, and the CPU time the backends used (read from
 * /proc, so only when the server runs on this machine). A benchmark's own client work is measured in
 * its JVM; this is the other half of what a job or a step costs the machine.
 */
final class BackendActivity {
    private final String url;
    private final String user;
    private final String dbName;
    private final String application;
    private volatile boolean running = true;
    private volatile int peakConnections;
    private volatile int peakActive;
    private volatile Exception failure;
    private final Map<Long, Long> firstTicks = new ConcurrentHashMap<>();
    private final Map<Long, Long> lastTicks = new ConcurrentHashMap<>();
    private Thread thread;

    /**
     * @param url         a JDBC URL of the server (any database on it but the one sampled)
     * @param dbName      the database whose backends count
     * @param application only the backends of connections with this application name; null for every one
     */
    BackendActivity(String url, String user, String dbName, String application) {
        this.url = url;
        this.user = user;
        this.dbName = dbName;
        this.application = application;
    }

    void start() {
        thread = new Thread(() -> {
            try (Connection c = DriverManager.getConnection(url, user, null);
                    PreparedStatement st = c.prepareStatement("SELECT pid, state = 'active' FROM pg_stat_activity "
                            + "WHERE datname = ? AND (CAST(? AS text) IS NULL OR application_name = ?)")) {
                st.setString(1, dbName);
                st.setString(2, application);
                st.setString(3, application);
                while (running) {
                    int connections = 0;
                    int active = 0;
                    try (ResultSet rs = st.executeQuery()) {
                        while (rs.next()) {
                            connections++;
                            active += rs.getBoolean(2) ? 1 : 0;
                            long pid = rs.getLong(1);
                            long ticks = cpuTicks(pid);
                            if (ticks >= 0) {
                                firstTicks.putIfAbsent(pid, ticks);
                                lastTicks.put(pid, ticks);
                            }
                        }
                    }
                    peakConnections = Math.max(peakConnections, connections);
                    peakActive = Math.max(peakActive, active);
                    Thread.sleep(20);
                }
            } catch (SQLException e) {
                failure = e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "bench-backend-activity");
        thread.setDaemon(true);
        thread.start();
    }

    void stop() throws InterruptedException {
        running = false;
        thread.join(5000);
        if (failure != null) {
            throw new IllegalStateException("sampling pg_stat_activity failed: " + failure, failure);
        }
    }

    int peakConnections() {
        return peakConnections;
    }

    int peakActive() {
        return peakActive;
    }

    /**
     * CPU time the backends used while sampled (NaN when none could be read: the server is elsewhere),
     * at the kernel's tick of 10 ms; a backend counts from its first sample on.
     */
    double backendCpuNanos() {
        if (lastTicks.isEmpty()) {
            return Double.NaN;
        }
        long ticks = 0;
        for (var e : lastTicks.entrySet()) {
            ticks += e.getValue() - firstTicks.get(e.getKey());
        }
        return ticks * 10e6;
    }

    /** utime + stime of a process in clock ticks (100 a second), or -1 when it cannot be read. */
    private static long cpuTicks(long pid) {
        try {
            return DatabaseCpu.parseStat(Files.readString(Path.of("/proc", Long.toString(pid), "stat")))
                    .map(f -> f[1]).orElse(-1L);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
