package dev.converge.spring;

import dev.converge.Converge;
import dev.converge.queue.EngineStats;
import java.sql.Statement;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/** UP while the engine runs and its store answers; the node id and its delivery counters as details. */
final class ConvergeHealthIndicator extends AbstractHealthIndicator {
    private final Converge engine;
    private final ConvergeLifecycle lifecycle;

    ConvergeHealthIndicator(Converge engine, ConvergeLifecycle lifecycle) {
        super("converge health check failed");
        this.engine = engine;
        this.lifecycle = lifecycle;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        engine.store().withConnection(c -> {
            try (Statement st = c.createStatement()) {
                st.execute("SELECT 1");
            }
            return null;
        });
        EngineStats s = engine.stats();
        (lifecycle.isRunning() ? builder.up() : builder.outOfService())
                .withDetail("node", engine.nodeId())
                .withDetail("leased", s.leased()).withDetail("succeeded", s.succeeded())
                .withDetail("failed", s.failed()).withDetail("retried", s.retried())
                .withDetail("leaseLost", s.leaseLost()).withDetail("rescued", s.rescued());
    }
}
