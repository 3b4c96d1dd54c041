package dev.converge.spring;

import dev.converge.Converge;
import dev.converge.crash.CrashPlan;
import dev.converge.ledger.ResourceType;
import dev.converge.handler.JobHandler;
import dev.converge.store.Store;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadFactory;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.task.VirtualThreadTaskExecutor;

/**
 * A Converge engine on the application's {@link DataSource}: the engine's schema migrated (unless
 * {@code converge.migrate=false}), every {@link TypedJobHandler} and {@link ResourceType} bean
 * registered, the engine started with the context and stopped gracefully before it closes, a
 * {@link TransactionalEnqueuer} that joins Spring transactions, and, when the application has
 * them, a health indicator and Micrometer counters. Every bean backs off if the application
 * defines its own.
 */
@AutoConfiguration(afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnBean(DataSource.class)
@ConditionalOnProperty(prefix = "converge", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(ConvergeProperties.class)
public class ConvergeAutoConfiguration {

    /** The engine's store over the application's pool; the application keeps owning the pool. */
    @Bean
    @ConditionalOnMissingBean
    public Store convergeStore(DataSource dataSource, ConvergeProperties properties) {
        Store store = Store.of(dataSource, dev.converge.time.EngineClock.database(), properties.getSchema());
        if (properties.isMigrate()) {
            store.migrate();
        }
        return store;
    }

    @Bean
    @ConditionalOnMissingBean
    public Converge converge(Store store, ConvergeProperties p, ObjectProvider<JobHandler<?>> handlers,
            ObjectProvider<ResourceType> resources, ObjectProvider<CrashPlan> crashPlan, Environment environment) {
        Converge.Builder b = Converge.builder(store).leases(l -> l.duration(p.getLease()))
                .queues(q -> q.poll(p.getPoll())
                        .shutdownGrace(p.getShutdownGrace()).systemQueue(p.getSystemQueue()));
        if (Threading.VIRTUAL.isActive(environment)) {
            // spring.threads.virtual.enabled on JDK 21 and later: handlers waiting on other services hold no
            // platform thread, as the application's own request threads do not
            ThreadFactory virtualThreads = new VirtualThreadTaskExecutor("converge-handler-").getVirtualThreadFactory();
            b.queues(q -> q.handlerThreads(virtualThreads));
        }
        if (p.getHeartbeat() != null) {
            b.leases(l -> l.heartbeat(p.getHeartbeat()));
        }
        if (p.getNodeId() != null) {
            b.nodeId(p.getNodeId());
        }
        b.ledger(g -> g.installation(p.getInstallation()));
        if (p.getWatchdog() != null) {
            b.maintenance(m -> m.watchdog(p.getWatchdog()));
        }
        if (p.getReaper() != null) {
            b.ledger(g -> g.reaper(p.getReaper(), p.getReapOlderThan()));
        }
        resources.orderedStream().forEach(b::resource);
        crashPlan.ifAvailable(b::crashPlan); // tests: the crash-point explorer's injector
        // without converge.queues: every handler's queue, and the system queue for the engine's own jobs
        Map<String, Integer> queues = new LinkedHashMap<>(p.getQueues());
        boolean derive = queues.isEmpty();
        for (JobHandler<?> h : handlers.orderedStream().toList()) {
            if (!(h instanceof TypedJobHandler<?> typed)) {
                throw new IllegalStateException("JobHandler bean " + h + " does not name its job type: declare it as"
                        + " TypedJobHandler.of(TYPE, handler), or implement TypedJobHandler");
            }
            if (!p.isWorker()) {
                b.declare(typed.type());
                continue;
            }
            register(b, typed);
            if (derive) {
                queues.putIfAbsent(typed.type().queue(), p.getDefaultConcurrency());
            }
        }
        if (p.isWorker()) {
            if (derive) {
                queues.putIfAbsent(p.getSystemQueue(), p.getDefaultConcurrency());
            }
            queues.forEach(b::queue);
        }
        return b.build();
    }

    private static <T> void register(Converge.Builder b, TypedJobHandler<T> h) {
        b.handle(h.type(), h);
    }

    @Bean
    @ConditionalOnMissingBean
    public ConvergeLifecycle convergeLifecycle(Converge converge) {
        return new ConvergeLifecycle(converge);
    }

    @Bean
    @ConditionalOnMissingBean
    public TransactionalEnqueuer convergeEnqueuer(Converge converge, DataSource dataSource) {
        return new TransactionalEnqueuer(converge, dataSource);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class Health {
        @Bean
        @ConditionalOnMissingBean(name = "convergeHealthIndicator")
        ConvergeHealthIndicator convergeHealthIndicator(Converge converge, ConvergeLifecycle lifecycle) {
            return new ConvergeHealthIndicator(converge, lifecycle);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
    static class Metrics {
        @Bean
        @ConditionalOnMissingBean(name = "convergeMetrics")
        ConvergeMetrics convergeMetrics(Converge converge) {
            return new ConvergeMetrics(converge);
        }
    }
}
