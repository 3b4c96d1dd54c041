package dev.converge.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.converge.Converge;
import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import dev.converge.testkit.ChildJvm;
import dev.converge.testkit.ScratchDatabase;
import dev.converge.testkit.TestStores;
import dev.converge.testkit.WorkerProcess;
import dev.converge.time.EngineClock;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * A working node on PostgreSQL holds a session advisory lock on its listening connection and
 * records its key: when its process dies the server ends the session, and the other nodes put its
 * jobs back at once instead of waiting out its lease. A node that is only paused, or whose record
 * predates the server's last start, keeps its jobs until the lease expires.
 */
class GoneNodeTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Far longer than any wait below: a job put back within it was not put back by its lease. */
    private static final String LONG_LEASE_MS = "60000";

    record Ping(int n) {
    }

    static final JobType<Ping> PING = JobType.of("gone.ping", Ping.class);

    @Test
    void aKilledWorkersJobIsRunAgainByAnotherLongBeforeItsLeaseExpires() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_gone_kill");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 4);
                Converge producer = Converge.builder(store).declare(WorkerProcess.STEP).build()) {
            exec(store, "CREATE TABLE proc_effect (job_id BIGINT NOT NULL, epoch BIGINT NOT NULL, node TEXT NOT NULL)");
            try (ChildJvm first = ChildJvm.start("worker-a", "work", db.url(), db.user(), "worker-a", LONG_LEASE_MS, "500")) {
                first.awaitLine("READY", WAIT);
                await().atMost(WAIT).until(() -> presenceRecorded(store, "worker-a"));
                long id = producer.enqueue(WorkerProcess.STEP, new WorkerProcess.Step(1, true)).jobId();
                first.awaitLine("STARTED " + id + " epoch=1", WAIT);
                try (ChildJvm second = ChildJvm.start("worker-b", "work", db.url(), db.user(), "worker-b", LONG_LEASE_MS, "500")) {
                    second.awaitLine("READY", WAIT);
                    long killedAt = System.nanoTime();
                    first.kill();
                    second.awaitLine("DONE " + id + " epoch=2", Duration.ofSeconds(15));
                    long tookMs = (System.nanoTime() - killedAt) / 1_000_000;
                    assertThat(tookMs).as("from the kill to the job done again (lease 60 s)").isLessThan(15_000);
                    assertThat(second.quit(WAIT)).isZero();
                }
                JobRow done = producer.job(id).orElseThrow();
                assertThat(done.state()).isEqualTo(JobState.SUCCEEDED);
                assertThat(done.lastError()).contains("the node holding it is gone");
                assertThat(producer.attempts(id)).first().satisfies(a -> {
                    assertThat(a.nodeId()).isEqualTo("worker-a");
                    assertThat(a.outcome()).isEqualTo("expired");
                });
            }
        }
    }

    /**
     * A node that starts where one died (the usual way a replacement comes up) takes the dead node's jobs back
     * with its first rescue pass, made as it starts, not one rescue interval later.
     */
    @Test
    void aStartingNodeTakesBackAGoneNodesJobsAtOnceNotAfterItsFirstInterval() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_gone_first");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 4);
                Converge replacement = Converge.builder(store).nodeId("replacement")
                        .leases(l -> l.rescue(Duration.ofSeconds(60))).handle(PING, (p, ctx) -> { })
                        .queue("default", 2).build()) {
            long id = replacement.enqueue(PING, new Ping(1)).jobId();
            try (Connection ghost = DriverManager.getConnection(db.url(), db.user(), null)) {
                ghostNode(ghost, "ghost", 5_555_555_555L, "now()"); // recorded, and its session ends below
            }
            leaseTo(store, id, "ghost");
            long startedAt = System.nanoTime();
            replacement.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> replacement.job(id).orElseThrow().state() == JobState.SUCCEEDED);
            long tookMs = (System.nanoTime() - startedAt) / 1_000_000;
            assertThat(tookMs).as("from the start of a node whose rescue interval is 60 s to the gone node's job done")
                    .isLessThan(10_000);
            assertThat(replacement.attempts(id)).extracting(JobAttempt::nodeId).containsExactly("ghost");
            assertThat(replacement.job(id).orElseThrow().leaseOwner()).isEqualTo("replacement");
        }
    }

    /**
     * With the default lease (30 s) the rescue interval is 5 s; a node that dies between two passes must not
     * leave its jobs for up to that long: gone nodes are looked for every second.
     */
    @Test
    void aNodeThatDiesBetweenRescuePassesIsSeenWithinASecondOrSo() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_gone_between");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 4);
                Converge rescuer = Converge.builder(store).nodeId("rescuer").leases(l -> l.duration(Duration.ofSeconds(60)))
                        .handle(PING, (p, ctx) -> { }).queue("default", 2).build()) {
            long id = rescuer.enqueue(PING, new Ping(1)).jobId();
            long diedAt;
            try (Connection ghost = DriverManager.getConnection(db.url(), db.user(), null)) {
                ghostNode(ghost, "ghost", 6_666_666_666L, "now()");
                lockOn(ghost, 6_666_666_666L);
                leaseTo(store, id, "ghost");
                rescuer.start(); // its first pass now, the next one 5 to 10 s later (a sixth of the lease: 10 s)
                Thread.sleep(1500);
                assertThat(rescuer.job(id).orElseThrow().leaseOwner()).isEqualTo("ghost");
                diedAt = System.nanoTime();
            }
            await().atMost(Duration.ofSeconds(15)).until(() -> rescuer.job(id).orElseThrow().state() == JobState.SUCCEEDED);
            long tookMs = (System.nanoTime() - diedAt) / 1_000_000;
            assertThat(tookMs).as("from the end of the gone node's session to its job done (rescue interval 10 s)")
                    .isLessThan(2_500);
            assertThat(rescuer.job(id).orElseThrow().lastError()).contains("the node holding it is gone");
        }
    }

    @Test
    void aNodeWhoseSessionIsOpenKeepsItsJobUntilTheSessionEnds() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_gone_open");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 4);
                Converge rescuer = node(store, "rescuer")) {
            long id = rescuer.enqueue(PING, new Ping(1)).jobId();
            try (Connection ghost = DriverManager.getConnection(db.url(), db.user(), null)) {
                ghostNode(ghost, "ghost", 7_777_777_777L, "now()");
                lockOn(ghost, 7_777_777_777L);
                leaseTo(store, id, "ghost");
                rescuer.start();
                assertKeptThroughRescuePasses(rescuer, id, "ghost"); // the ghost's session is open
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> rescuer.job(id).orElseThrow().state() == JobState.SUCCEEDED);
            assertThat(rescuer.job(id).orElseThrow().lastError()).contains("the node holding it is gone");
        }
    }

    @Test
    void aRecordMadeBeforeTheServerLastStartedProvesNothing() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_gone_restart");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 4);
                Converge rescuer = node(store, "rescuer")) {
            long id = rescuer.enqueue(PING, new Ping(1)).jobId();
            try (Connection ghost = DriverManager.getConnection(db.url(), db.user(), null)) {
                // the lock is not held: as after a restart of the server, which dropped every session
                ghostNode(ghost, "ghost", 8_888_888_888L, "pg_postmaster_start_time() - interval '1 second'");
            }
            leaseTo(store, id, "ghost");
            rescuer.start();
            assertKeptThroughRescuePasses(rescuer, id, "ghost");
            // the same record made since the server started: the node is gone
            exec(store, "UPDATE cv_node SET present_since = now() WHERE node_id = 'ghost'");
            await().atMost(Duration.ofSeconds(10)).until(() -> rescuer.job(id).orElseThrow().state() == JobState.SUCCEEDED);
        }
    }

    @Test
    void aRecordMadeBeforeTheServersLastCrashRestartProvesNothingEither() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_gone_crash");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 4);
                Converge rescuer = node(store, "rescuer")) {
            // a crash restart keeps the postmaster's start time and starts a new checkpointer; the
            // checkpointer of a server started normally starts a little after the postmaster too,
            // and a record made between the two stands for one made before a crash restart
            exec(store, "CREATE TABLE starts AS SELECT pg_postmaster_start_time() AS postmaster, "
                    + "(SELECT backend_start FROM pg_stat_activity WHERE backend_type = 'checkpointer') AS checkpointer");
            assertThat(count(store, "SELECT count(*) FROM starts WHERE checkpointer > postmaster"))
                    .as("the test's role sees the checkpointer, started after the postmaster").isEqualTo(1);
            long id = rescuer.enqueue(PING, new Ping(1)).jobId();
            try (Connection ghost = DriverManager.getConnection(db.url(), db.user(), null)) {
                ghostNode(ghost, "ghost", 6_666_666_666L,
                        "(SELECT postmaster + (checkpointer - postmaster) / 2 FROM starts)");
            }
            leaseTo(store, id, "ghost");
            rescuer.start();
            assertKeptThroughRescuePasses(rescuer, id, "ghost");
        }
    }

    @Test
    void aJobTakenBackWakesTheOtherNodesNotOnlyTheOneThatTookItBack() throws Exception {
        JobType<Ping> block = JobType.of("gone.block", Ping.class);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        try (ScratchDatabase db = ScratchDatabase.create("cv_gone_wake");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 4);
                // a: takes leases back every 200 ms, and its one slot is busy (no prefetch: it cannot lease ahead)
                Converge a = Converge.builder(store).nodeId("a").leases(l -> l.rescue(Duration.ofMillis(200)))
                        .queues(q -> q.prefetch(0))
                        .handle(PING, (p, ctx) -> { }).handle(block, (p, ctx) -> release.await())
                        .queue("default", 1).build();
                // b: free, but polls every 30 s and takes nothing back itself before then
                Converge b = Converge.builder(store).nodeId("b").leases(l -> l.rescue(Duration.ofSeconds(60)))
                        .queues(q -> q.poll(Duration.ofSeconds(30))).handle(PING, (p, ctx) -> { })
                        .handle(block, (p, ctx) -> release.await()).queue("default", 2).build()) {
            long id = a.enqueue(PING, new Ping(1)).jobId();
            leaseTo(store, id, "ghost");
            try (Connection ghost = DriverManager.getConnection(db.url(), db.user(), null)) {
                ghostNode(ghost, "ghost", 9_999_999_999L, "pg_postmaster_start_time() - interval '1 second'");
            }
            a.start();
            long busy = a.enqueue(block, new Ping(2)).jobId();
            await().atMost(WAIT).until(() -> a.job(busy).orElseThrow().state() == JobState.RUNNING);
            b.start();
            await().atMost(WAIT).until(() -> presenceRecorded(store, "b"));
            Thread.sleep(500); // b's first fetch found nothing; it waits for a wake-up or its poll

            exec(store, "UPDATE cv_node SET present_since = now() WHERE node_id = 'ghost'"); // the ghost is gone now
            await().atMost(Duration.ofSeconds(5)).until(() -> a.job(id).orElseThrow().state() == JobState.SUCCEEDED);
            assertThat(a.attempts(id)).extracting(JobAttempt::nodeId).containsExactly("ghost");
            assertThat(a.job(id).orElseThrow().leaseOwner()).isEqualTo("b");
        } finally {
            release.countDown();
        }
    }

    @Test
    void aLiveNodeRecordsItsPresenceAgainAfterLosingItsSession() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_gone_again");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 4);
                Converge live = node(store, "live").start()) {
            await().atMost(WAIT).until(() -> presenceRecorded(store, "live"));
            String first = presence(store, "live");
            exec(store, "SELECT pg_terminate_backend(l.pid) FROM pg_locks l JOIN cv_node n ON n.node_id = 'live' "
                    + "AND ((CAST(l.classid AS BIGINT) << 32) | CAST(l.objid AS BIGINT)) = n.presence_key "
                    + "WHERE l.locktype = 'advisory' AND l.objsubid = 1");
            await().atMost(WAIT).until(() -> presenceRecorded(store, "live") && !presence(store, "live").equals(first));
        }
    }

    @Test
    void anEngineStoppedOverTheCallersPoolLeavesNoLockOnThePoolsConnection() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_gone_pool")) {
            HikariConfig hc = new HikariConfig();
            hc.setJdbcUrl(db.url());
            hc.setUsername(db.user());
            hc.setMaximumPoolSize(4);
            try (HikariDataSource ds = new HikariDataSource(hc)) {
                Store store = Store.of(ds);
                store.migrate();
                try (Converge engine = node(store, "pooled").start()) {
                    await().atMost(WAIT).until(() -> presenceRecorded(store, "pooled"));
                }
                assertThat(advisoryLocks(store)).as("advisory locks left in the pool after the engine stopped").isZero();
            }
        }
    }

    @Test
    void besideThePreviousSchemaJobsAreTakenBackByTheirLeaseAndPresenceBeginsOnceMigrated() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_gone_prev");
                Store store = Store.open(StoreConfig.postgres(db.url()).username(db.user()).migrate(false).build())) {
            Flyway.configure().dataSource(store.dataSource()).locations(store.migrationLocation())
                    .table(Store.SCHEMA_HISTORY_TABLE).target("17").load().migrate();
            try (Converge rescuer = node(store, "rescuer")) {
                long id = rescuer.enqueue(PING, new Ping(1)).jobId();
                exec(store, "INSERT INTO cv_node (node_id, version, queues, job_types, started_at, last_seen) "
                        + "VALUES ('ghost', 'previous', 'default=2', 'gone.ping', now(), now())");
                leaseTo(store, id, "ghost");
                exec(store, "UPDATE cv_job SET lease_expires_at = now() + interval '2 seconds' WHERE id = " + id);
                rescuer.start();
                await().atMost(Duration.ofSeconds(15)).until(() -> rescuer.job(id).orElseThrow().state() == JobState.SUCCEEDED);
                assertThat(rescuer.job(id).orElseThrow().lastError()).contains("lease expired: the worker holding it stopped");

                Flyway.configure().dataSource(store.dataSource()).locations(store.migrationLocation())
                        .table(Store.SCHEMA_HISTORY_TABLE).load().migrate();
                // the columns are looked for every 10 s until they are there
                await().atMost(Duration.ofSeconds(30)).until(() -> presenceRecorded(store, "rescuer"));
            }
        }
    }

    /** After some 15 of the rescuer's passes (200 ms each), the job is still running, held by {@code owner}. */
    private static void assertKeptThroughRescuePasses(Converge rescuer, long id, String owner) throws InterruptedException {
        Thread.sleep(3000);
        JobRow row = rescuer.job(id).orElseThrow();
        assertThat(row.state()).isEqualTo(JobState.RUNNING);
        assertThat(row.leaseOwner()).isEqualTo(owner);
    }

    /** A working node, not started, that looks for leases to take back every 200 ms. */
    private static Converge node(Store store, String node) {
        return Converge.builder(store).nodeId(node).leases(l -> l.rescue(Duration.ofMillis(200)))
                .handle(PING, (p, ctx) -> { }).queue("default", 2).build();
    }

    private static void ghostNode(Connection c, String node, long key, String since) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("INSERT INTO cv_node (node_id, version, queues, job_types, started_at, last_seen, presence_key, "
                    + "present_since) VALUES ('" + node + "', 'test', 'default=2', 'gone.ping', now(), now(), " + key + ", "
                    + since + ")");
        }
    }

    private static void lockOn(Connection c, long key) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("SELECT pg_advisory_lock(" + key + ")");
        }
    }

    /** Leases the job to {@code node} for a minute, as that node's fetch would have. */
    private static void leaseTo(Store store, long id, String node) {
        int n = store.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE cv_job SET state = 'running', epoch = epoch + 1, "
                    + "attempt = attempt + 1, lease_owner = ?, lease_expires_at = now() + interval '60 seconds', "
                    + "started_at = now() WHERE id = ? AND state = 'available'")) {
                ps.setString(1, node);
                ps.setLong(2, id);
                return ps.executeUpdate();
            }
        });
        assertThat(n).as("job %d leased to %s before any worker took it", id, node).isEqualTo(1);
    }

    private static boolean presenceRecorded(Store store, String node) {
        return store.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM cv_node n JOIN pg_locks l "
                    + "ON ((CAST(l.classid AS BIGINT) << 32) | CAST(l.objid AS BIGINT)) = n.presence_key "
                    + "AND l.locktype = 'advisory' AND l.objsubid = 1 AND l.granted "
                    + "WHERE n.node_id = ? AND n.present_since >= pg_postmaster_start_time()")) {
                ps.setString(1, node);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getInt(1) == 1;
                }
            }
        });
    }

    private static String presence(Store store, String node) {
        return store.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT presence_key || '@' || present_since FROM cv_node "
                    + "WHERE node_id = ?")) {
                ps.setString(1, node);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? String.valueOf(rs.getString(1)) : "none";
                }
            }
        });
    }

    private static int advisoryLocks(Store store) {
        return store.withConnection(c -> {
            try (Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
                            + "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")) {
                rs.next();
                return rs.getInt(1);
            }
        });
    }

    private static int count(Store store, String sql) {
        return store.withConnection(c -> {
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
                rs.next();
                return rs.getInt(1);
            }
        });
    }

    private static void exec(Store store, String sql) {
        store.withConnection(c -> {
            try (Statement st = c.createStatement()) {
                st.execute(sql);
            }
            return List.of();
        });
    }
}
