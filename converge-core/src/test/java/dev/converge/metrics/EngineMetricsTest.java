package dev.converge.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.flow.Harness;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.queue.internal.LeasedJob;
import dev.converge.queue.NonRetryableException;
import dev.converge.queue.internal.EngineObserver;
import dev.converge.retention.RetentionPolicy;
import dev.converge.retention.RetentionReport;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.MDC;

/** The engine's Micrometer meters after a known workload, and the MDC of a delivery. */
class EngineMetricsTest {
    static final JobType<Integer> OK = JobType.of("m.ok", Integer.class);
    static final JobType<Integer> BAD = JobType.of("m.bad", Integer.class);
    static final JobType<Integer> FLAKY = JobType.of("m.flaky", Integer.class);
    static final JobType<Integer> PARKED = JobType.of("m.parked", Integer.class).withQueue("idle");

    static double counter(MeterRegistry r, String name, String... tags) {
        // the sum over every series with these tags (others, such as outcomes, are registered at zero from the start)
        return r.find(name).tags(tags).counters().stream().mapToDouble(io.micrometer.core.instrument.Counter::count).sum();
    }

    static double gauge(MeterRegistry r, String name, String... tags) {
        var g = r.find(name).tags(tags).gauge();
        return g == null ? -1 : g.value();
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void metersCountAKnownWorkload(String kind) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Map<Integer, Integer> flakyAttempts = new ConcurrentHashMap<>();
        List<Map<String, String>> mdcInside = new CopyOnWriteArrayList<>();
        List<Map<String, String>> mdcAfter = new CopyOnWriteArrayList<>();
        try (Harness h = new Harness(kind)) {
            Converge engine = h.engine(b -> b.telemetry(t -> t.metrics(registry).metricsSampling(null))
                    .maintenance(m -> m.retention(RetentionPolicy.defaults().succeededAfter(Duration.ZERO)))
                    .handle(OK, (n, ctx) -> mdcInside.add(MDC.getCopyOfContextMap()))
                    .handle(BAD, (n, ctx) -> {
                        throw new NonRetryableException("no " + n);
                    })
                    .handle(FLAKY, (n, ctx) -> {
                        if (flakyAttempts.merge(n, 1, Integer::sum) == 1) {
                            throw new IllegalStateException("first attempt of " + n + " fails");
                        }
                    })
                    .declare(PARKED)
                    .queue("default", 2));
            dev.converge.EngineInternals.runtime(engine).observeEngine(new EngineObserver() {
                @Override
                public void ran(LeasedJob job, long nanos) {
                    // called on the worker thread right after the handler: the delivery's MDC is gone
                    Map<String, String> m = MDC.getCopyOfContextMap();
                    mdcAfter.add(m == null ? Map.of() : m);
                }
            });
            List<Job<Integer>> jobs = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                jobs.add(Job.of(OK, i));
            }
            for (int i = 0; i < 3; i++) {
                engine.enqueue(Job.of(BAD, i));
            }
            for (int i = 0; i < 2; i++) {
                engine.enqueue(Job.of(FLAKY, i).maxAttempts(3));
            }
            for (int i = 0; i < 4; i++) {
                engine.enqueue(PARKED, i);
            }
            engine.enqueueAll(jobs);

            await().atMost(Duration.ofSeconds(30)).until(() -> counter(registry, "converge.jobs.completed", "type", "m.flaky",
                    "outcome", "succeeded") == 2 && counter(registry, "converge.jobs.completed", "type", "m.ok") == 5
                    && counter(registry, "converge.jobs.completed", "type", "m.bad") == 3);

            assertThat(counter(registry, "converge.jobs.enqueued", "type", "m.ok", "queue", "default")).isEqualTo(5);
            assertThat(counter(registry, "converge.jobs.enqueued", "type", "m.bad")).isEqualTo(3);
            assertThat(counter(registry, "converge.jobs.enqueued", "type", "m.parked", "queue", "idle")).isEqualTo(4);
            assertThat(counter(registry, "converge.jobs.completed", "type", "m.ok", "outcome", "succeeded")).isEqualTo(5);
            assertThat(counter(registry, "converge.jobs.completed", "type", "m.bad", "outcome", "failed")).isEqualTo(3);
            assertThat(counter(registry, "converge.jobs.retried", "type", "m.flaky")).isEqualTo(2);
            assertThat(registry.find("converge.jobs.completed").tags("outcome", "retried").counters())
                    .as("a retry is not a completion").isEmpty();
            assertThat(registry.find("converge.jobs.run").tags("type", "m.ok").timer().count()).isEqualTo(5);
            assertThat(registry.find("converge.jobs.run").tags("type", "m.flaky").timer().count()).isEqualTo(4);
            // time in queue is per queue (a type's own would multiply its series): one per delivery started
            assertThat(registry.find("converge.jobs.wait").tags("queue", "default").timer().count())
                    .isEqualTo(registry.find("converge.jobs.run").tags("queue", "default").timers().stream()
                            .mapToLong(io.micrometer.core.instrument.Timer::count).sum());
            assertThat(registry.find("converge.jobs.wait").tags("queue", "default").timer().getId().getTag("type")).isNull();

            // gauges, sampled on demand: 4 parked jobs wait on "idle"; a flow and ledger rows put in by hand
            h.store().withConnection(c -> {
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO cv_flow (kind, subject, state, created_at, "
                        + "updated_at) VALUES ('m.flow', 's1', 'compensating', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)")) {
                    ps.executeUpdate();
                }
                for (String[] e : new String[][] {{"k1", "confirmed"}, {"k2", "confirmed"}, {"k3", "uncertain"}}) {
                    try (PreparedStatement ps = c.prepareStatement("INSERT INTO cv_ledger (kind, natural_key, subject, "
                            + "state, safety, owner_job_id, owner_epoch, created_at, updated_at) VALUES ('vm', ?, 's', ?, "
                            + "'safe', 999999, 1, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)")) {
                        ps.setString(1, e[0]);
                        ps.setString(2, e[1]);
                        ps.executeUpdate();
                    }
                }
                return null;
            });
            ConvergeMetrics metrics = engine.metrics().orElseThrow();
            metrics.sample();
            assertThat(gauge(registry, "converge.queue.depth", "queue", "idle", "state", "available")).isEqualTo(4);
            assertThat(gauge(registry, "converge.flows", "state", "compensating")).isEqualTo(1);
            assertThat(gauge(registry, "converge.ledger.entries", "kind", "vm", "state", "confirmed")).isEqualTo(2);
            assertThat(gauge(registry, "converge.ledger.entries", "kind", "vm", "state", "uncertain")).isEqualTo(1);
            assertThat(gauge(registry, "converge.ledger.orphans", "kind", "vm")).isEqualTo(1);

            // a lease that expired (its node died) is rescued, and counted
            h.store().withConnection(c -> {
                try (PreparedStatement ps = c.prepareStatement("UPDATE cv_job SET state = 'running', epoch = epoch + 1, "
                        + "lease_owner = 'gone', lease_expires_at = ?, attempt = 1 WHERE kind = 'm.parked' "
                        + "AND payload = '0'")) {
                    ps.setTimestamp(1, java.sql.Timestamp.from(java.time.Instant.now().minusSeconds(60)));
                    return ps.executeUpdate();
                }
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> counter(registry, "converge.leases.rescued") >= 1);
            metrics.sample();
            assertThat(gauge(registry, "converge.queue.depth", "queue", "idle", "state", "available")).isEqualTo(4);
            assertThat(gauge(registry, "converge.queue.depth", "queue", "default", "state", "available"))
                    .as("a combination with no rows left reads zero or was never there").isIn(-1.0, 0.0);

            // retention's deletions are counted per table
            RetentionReport r = engine.retention().orElseThrow().round();
            assertThat(r.jobs()).as("5 ok + 2 flaky succeeded, kept 0ms").isEqualTo(7);
            assertThat(counter(registry, "converge.retention.deleted", "table", "cv_job")).isEqualTo(7);

            // every line a handler logs carries its job's id, type, queue and attempt; nothing is left after
            assertThat(mdcInside).hasSize(5).allSatisfy(m -> {
                assertThat(m).containsEntry("job_type", "m.ok").containsEntry("queue", "default")
                        .containsEntry("attempt", "1").containsKey("job_id").doesNotContainKey("flow_id");
            });
            assertThat(mdcInside.stream().map(m -> m.get("job_id")).distinct()).hasSize(5);
            assertThat(mdcAfter).hasSizeGreaterThanOrEqualTo(10).allSatisfy(m -> assertThat(m)
                    .doesNotContainKeys("job_id", "job_type", "queue", "attempt", "flow_id"));
        }
    }
}
