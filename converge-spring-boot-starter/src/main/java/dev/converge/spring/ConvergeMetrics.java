package dev.converge.spring;

import dev.converge.Converge;
import dev.converge.queue.EngineStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.function.ToDoubleFunction;

/** The engine's delivery counters as {@code converge.jobs{outcome=...}}, bound to the application's registry. */
final class ConvergeMetrics implements MeterBinder {
    private final Converge engine;

    ConvergeMetrics(Converge engine) {
        this.engine = engine;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        counter(registry, "leased", EngineStats::leased);
        counter(registry, "succeeded", EngineStats::succeeded);
        counter(registry, "failed", EngineStats::failed);
        counter(registry, "retried", EngineStats::retried);
        counter(registry, "cancelled", EngineStats::cancelled);
        counter(registry, "lease_lost", EngineStats::leaseLost);
        counter(registry, "abandoned", EngineStats::abandoned);
        counter(registry, "rescued", EngineStats::rescued);
    }

    private void counter(MeterRegistry registry, String outcome, ToDoubleFunction<EngineStats> f) {
        FunctionCounter.builder("converge.jobs", engine, e -> f.applyAsDouble(e.stats()))
                .description("job deliveries on this node by outcome").tag("outcome", outcome).register(registry);
    }
}
