package dev.converge.queue.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.fixture.RoundTrips;
import dev.converge.flow.Harness;
import dev.converge.queue.Job;
import dev.converge.queue.JobState;
import dev.converge.queue.JobType;
import dev.converge.store.Store;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every node looks for leases to take back several times a second (a sixth of the lease, and once a second for
 * gone nodes on PostgreSQL), and nearly every look finds none: such a look is one read in autocommit, not a
 * transaction that locks. A lease that did expire is still taken back by the next look.
 */
class IdleRescueTest {
    record Nap(String id) {
    }

    static final JobType<Nap> NAP = JobType.of("idle-rescue.nap", Nap.class);

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aLookThatFindsNothingIsOneStatementAndAnExpiredLeaseIsStillTakenBack(String kind) {
        try (Harness h = new Harness(kind)) {
            Map<String, List<String>> byThread = new ConcurrentHashMap<>();
            Store counted = Store.of(RoundTrips.counting(h.store().dataSource(), byThread), h.store().clock());
            Converge engine = h.engine(counted, b -> b.declare(NAP).queue("default", 1)
                    .leases(l -> l.duration(Duration.ofSeconds(3)).rescue(Duration.ofMillis(100))));
            await().atMost(Duration.ofSeconds(10)).until(() -> looks(byThread).size() >= 10);
            List<String> idle = List.copyOf(looks(byThread));
            assertThat(idle).as("what the rescuer sent while nothing was running")
                    .allMatch(s -> s.startsWith("SELECT CASE WHEN EXISTS"))
                    .noneMatch(s -> s.contains("FOR UPDATE"));

            // a job left running under a lease that ran out, as a killed node leaves it
            long id = engine.enqueue(Job.of(NAP, new Nap("left"))).jobId();
            h.store().withConnection(c -> {
                try (PreparedStatement ps = c.prepareStatement("UPDATE cv_job SET state = 'running', epoch = epoch + 1, "
                        + "attempt = attempt + 1, lease_owner = 'gone-node', lease_expires_at = ?, started_at = ? "
                        + "WHERE id = ?")) {
                    java.sql.Timestamp past = java.sql.Timestamp.from(java.time.Instant.now().minusSeconds(60));
                    ps.setTimestamp(1, past);
                    ps.setTimestamp(2, past);
                    ps.setLong(3, id);
                    assertThat(ps.executeUpdate()).isEqualTo(1);
                }
                return null;
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> engine.job(id).orElseThrow().attempt() == 1
                    && engine.job(id).orElseThrow().state() != JobState.RUNNING);
            assertThat(engine.job(id).orElseThrow().state()).as("put back for redelivery").isEqualTo(JobState.AVAILABLE);
            assertThat(engine.attempts(id)).as("its expired attempt recorded").isNotEmpty();
        }
    }

    private static List<String> looks(Map<String, List<String>> byThread) {
        List<String> out = new ArrayList<>();
        byThread.forEach((thread, sent) -> {
            if (thread.equals("converge-rescue")) {
                synchronized (sent) {
                    out.addAll(sent);
                }
            }
        });
        return out;
    }
}
