package dev.converge.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.Converge;
import dev.converge.store.Store;
import dev.converge.testkit.ChildJvm;
import dev.converge.testkit.ScratchDatabase;
import dev.converge.testkit.TestStores;
import dev.converge.testkit.WorkerProcess;
import dev.converge.time.EngineClock;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A real worker process is killed with SIGKILL in the middle of a job. Nothing it held is
 * released by it; its lease runs out by the database clock, and another worker process picks the
 * job up under a new epoch and completes it, once.
 */
class WorkerKillTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void aJobWhoseWorkerWasKilledMidRunIsCompletedOnceByAnotherProcess() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_kill");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 4);
                Converge producer = Converge.builder(store).declare(WorkerProcess.STEP).build()) {
            store.withConnection(c -> {
                try (Statement st = c.createStatement()) {
                    st.execute("CREATE TABLE proc_effect (job_id BIGINT NOT NULL, epoch BIGINT NOT NULL, node TEXT NOT NULL)");
                }
                return null;
            });
            long id;
            try (ChildJvm first = ChildJvm.start("worker-a", "work", db.url(), db.user(), "worker-a", "2000")) {
                first.awaitLine("READY", WAIT);
                id = producer.enqueue(WorkerProcess.STEP, new WorkerProcess.Step(1, true)).jobId();
                first.awaitLine("STARTED " + id + " epoch=1", WAIT);
                first.kill();
                assertThat(first.linesStartingWith("DONE")).isEmpty();
            }
            JobRow orphaned = producer.job(id).orElseThrow();
            assertThat(orphaned.state()).isEqualTo(JobState.RUNNING);
            assertThat(orphaned.leaseOwner()).isEqualTo("worker-a");

            try (ChildJvm second = ChildJvm.start("worker-b", "work", db.url(), db.user(), "worker-b", "2000")) {
                second.awaitLine("DONE " + id + " epoch=2", WAIT);
                assertThat(second.quit(WAIT)).isZero();
                assertThat(second.linesStartingWith("STARTED " + id)).hasSize(1);
                assertThat(second.linesStartingWith("DONE " + id)).hasSize(1);
            }
            JobRow done = producer.job(id).orElseThrow();
            assertThat(done.state()).isEqualTo(JobState.SUCCEEDED);
            assertThat(done.epoch()).isEqualTo(2);
            assertThat(done.attempt()).isEqualTo(2);
            assertThat(done.lastError()).contains("lease expired");
            assertThat(effects(store)).containsExactly(id + "@2 by worker-b");
        }
    }

    private static List<String> effects(Store store) {
        return store.withConnection(c -> {
            List<String> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT job_id, epoch, node FROM proc_effect ORDER BY job_id, epoch");
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getLong(1) + "@" + rs.getLong(2) + " by " + rs.getString(3));
                }
            }
            return out;
        });
    }
}
