package dev.converge.proof.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DatabaseCpuTest {
    private static final String SERVER = System.getenv().getOrDefault("CONVERGE_PG_URL",
            "jdbc:postgresql://127.0.0.1:5432/postgres");
    private static final String USER = System.getenv().getOrDefault("CONVERGE_PG_USER", "root");

    @Test
    void aStatLineGivesParentOwnAndReapedTicksAndStartEvenWithParenthesesInTheName() {
        String line = "4242 (postgres: root db (1) idle) S 900 4242 4242 0 -1 4194560 100 0 0 0 "
                + "70 30 500 25 20 0 1 0 123456 1000 200 18446744073709551615";

        long[] s = DatabaseCpu.parseStat(line).orElseThrow();

        assertThat(s).containsExactly(900, 100, 525, 123456);
        assertThat(DatabaseCpu.parseStat("4242 postgres")).isEmpty();
    }

    /** A fake process table: a postmaster, its backends, one reaped; then a restart under a new pid. */
    @Test
    void reapedBackendsCountAndARestartKeepsWhatTheOldServerSpent(@TempDir Path proc) throws Exception {
        AtomicLong backend = new AtomicLong(101);
        process(proc, 100, 1, "postgres", 50, 0, 7);   // postmaster: 0.5 s of its own
        process(proc, 101, 100, "postgres", 200, 0, 8); // a backend: 2 s
        DatabaseCpu cpu = DatabaseCpu.start(read -> read.apply(backend.get()), proc).orElseThrow();
        try {
            assertThat(cpu.cpuSeconds()).isEqualTo(0.0);

            process(proc, 101, 100, "postgres", 260, 0, 8);   // +0.6 s while alive
            process(proc, 102, 100, "postgres", 40, 0, 9);    // a backend born since: all of its 0.4 s
            assertThat(cpu.cpuSeconds()).isCloseTo(1.0, within(1e-9));

            Files.walk(proc.resolve("102")).sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            process(proc, 100, 1, "postgres", 50, 40 + 10, 7); // reaped: its 0.4 s (+0.1 s) now in the parent's
            assertThat(cpu.cpuSeconds()).isCloseTo(1.1, within(1e-9));

            // a restart: the old postmaster is gone, a new one (born after the moment) serves
            for (String pid : new String[] {"100", "101"}) {
                Files.walk(proc.resolve(pid)).sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
            assertThat(cpu.cpuSeconds()).isCloseTo(1.1, within(1e-9));
            process(proc, 300, 1, "postgres", 20, 0, 99);
            process(proc, 301, 300, "postgres", 30, 0, 100);
            backend.set(301);
            assertThat(cpu.cpuSeconds()).isCloseTo(1.1 + 0.5, within(1e-9));

            // a pid reused by another program is not the postmaster any more
            process(proc, 300, 1, "bash", 10_000, 0, 555);
            assertThat(cpu.cpuSeconds()).isCloseTo(1.6, within(1e-9));
        } finally {
            cpu.close();
        }
    }

    /** A backend exits as soon as its connection closes: the server is found while the connection is open. */
    @Test
    void theServerIsFoundWhileTheBackendStillLives(@TempDir Path proc) throws Exception {
        process(proc, 100, 1, "postgres", 50, 0, 7);
        DatabaseCpu cpu = DatabaseCpu.start(read -> {
            process(proc, 101, 100, "postgres", 3, 0, 8); // the connection's backend, for as long as it is open
            try {
                return read.apply(101L);
            } finally {
                Files.delete(proc.resolve("101/stat"));
                Files.delete(proc.resolve("101/comm"));
                Files.delete(proc.resolve("101"));
            }
        }, proc).orElseThrow();
        cpu.close();
    }

    @Test
    void aServerNotOnThisMachineGivesNoFigure(@TempDir Path proc) throws Exception {
        process(proc, 100, 1, "java", 5, 0, 7);
        process(proc, 101, 100, "java", 5, 0, 8);

        assertThat(DatabaseCpu.start(read -> read.apply(101L), proc)).isEmpty(); // its parent is not a postmaster
        assertThat(DatabaseCpu.start(read -> read.apply(999L), proc)).isEmpty(); // not in this process table
        assertThat(DatabaseCpu.start(read -> {
            throw new java.sql.SQLException("refused");
        }, proc)).isEmpty();
    }

    /**
     * The real server: a backend burns CPU, then its connection closes and the backend exits. Its time
     * is still counted (the postmaster reaped it); a count of live backends would have lost it.
     */
    @Test
    void aBackendThatBurnedCpuAndExitedIsCounted() throws Exception {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/self/stat")), "no /proc: the report says n/a");
        if (!ScratchPostgres.reachable(SERVER, USER)) {
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                fail("PostgreSQL is unreachable at " + SERVER + " and CI=true");
            }
            Assumptions.abort("PostgreSQL is unreachable at " + SERVER);
        }
        DatabaseCpu cpu = DatabaseCpu.start(DatabaseCpuTest::withNewBackend).orElse(null);
        if (cpu == null) {
            if ("true".equalsIgnoreCase(System.getenv("CI")) && SERVER.contains("//127.0.0.1")) {
                fail("PostgreSQL runs on this machine (" + SERVER + ") and CI=true, but its processes were not found");
            }
            Assumptions.abort("PostgreSQL does not run on this machine: no figure");
        }
        try {
            double before = cpu.cpuSeconds();
            long burner;
            double burned;
            long start = System.nanoTime();
            try (Connection c = DriverManager.getConnection(SERVER, USER, null); Statement st = c.createStatement()) {
                st.execute("SET max_parallel_workers_per_gather = 0");
                try (ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
                    rs.next();
                    burner = rs.getLong(1);
                }
                st.executeQuery("SELECT sum(i) FROM generate_series(1, 15000000) i").close();
                long[] own = DatabaseCpu.parseStat(Files.readString(Path.of("/proc/" + burner + "/stat"))).orElseThrow();
                burned = own[1] / (double) DatabaseCpu.TICKS_PER_SECOND;
            }
            double wall = (System.nanoTime() - start) / 1e9;
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (Files.exists(Path.of("/proc/" + burner)) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(Path.of("/proc/" + burner)).as("the burning backend has exited").doesNotExist();

            double spent = cpu.cpuSeconds() - before;

            // all that the backend spent, to its last tick (the sampler's last look at it was up to a second earlier)
            assertThat(burned).as("the query kept its backend busy").isGreaterThan(0.2);
            assertThat(spent).as("CPU-seconds of the server, its backend having burned %.2f", burned)
                    .isGreaterThanOrEqualTo(burned)
                    .isLessThan(wall * Runtime.getRuntime().availableProcessors() + 2);
        } finally {
            cpu.close();
        }
    }

    private static java.util.Optional<long[]> withNewBackend(java.util.function.LongFunction<java.util.Optional<long[]>> read)
            throws Exception {
        try (Connection c = DriverManager.getConnection(SERVER, USER, null); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return read.apply(rs.getLong(1));
        }
    }

    private static void process(Path proc, long pid, long ppid, String comm, long ownTicks, long reapedTicks, long start)
            throws Exception {
        Path dir = Files.createDirectories(proc.resolve(Long.toString(pid)));
        Files.writeString(dir.resolve("comm"), comm + "\n");
        Files.writeString(dir.resolve("stat"), pid + " (" + comm + ") S " + ppid + " 1 1 0 -1 0 0 0 0 0 "
                + ownTicks + " 0 " + reapedTicks + " 0 20 0 1 0 " + start + " 0 0\n");
    }
}
