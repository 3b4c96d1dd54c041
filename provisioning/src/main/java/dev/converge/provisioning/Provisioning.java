package dev.converge.provisioning;

import dev.converge.provisioning.config.ProvisioningConfig;
import dev.converge.Converge;
import dev.converge.provisioning.event.Events;
import dev.converge.provisioning.flow.SiteFlows;
import dev.converge.provisioning.flow.SiteResources;
import dev.converge.provisioning.lead.Leads;
import dev.converge.provisioning.service.ProvisioningService;
import dev.converge.provisioning.site.Receipts;
import dev.converge.provisioning.site.SiteSteps;
import dev.converge.provisioning.site.SiteStore;
import dev.converge.provisioning.site.Sites;
import dev.converge.provisioning.tenant.Tenants;
import dev.converge.store.Store;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The provisioning service assembled on one node: its schema, the engine with the site flows'
 * handlers, and the services the HTTP API, the MCP tools and the CLI use.
 */
public final class Provisioning implements ProvisioningService, AutoCloseable {
    private final Store store;
    private final ProvisioningConfig config;
    private final PrometheusMeterRegistry meters;
    private final Converge engine;
    private final Tenants tenants;
    private final Leads leads;
    private final Sites sites;
    private final Events events;
    private final SiteResources resources;
    private final dev.converge.provisioning.flow.SiteJobs jobs;
    private final dev.converge.provisioning.limits.Limits limits;
    private final dev.converge.provisioning.conversation.Conversations conversations;
    private volatile dev.converge.provisioning.assistant.AssistantTurn assistant;
    private final dev.converge.provisioning.hand.OperatorActions hand;
    private volatile dev.converge.provisioning.site.TrialDeadlines trials;
    private volatile Sites admitting;

    private Provisioning(Store store, ProvisioningConfig config, NodeOptions node,
            dev.converge.provisioning.assistant.ModelSettings model) {
        this.store = store;
        this.config = config;
        this.meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        meters.config().meterFilter(HISTOGRAMS);
        this.tenants = new Tenants(store);
        this.limits = new dev.converge.provisioning.limits.Limits(store);
        this.leads = new Leads(store);
        this.events = new Events(store);
        this.resources = new SiteResources(config);
        bindProcessMeters(meters, store);
        this.jobs = node.jobs();
        SiteStore siteStore = new SiteStore(store);
        Receipts receipts = new Receipts(config, resources, store.clock()::localNow);
        SiteSteps steps = new SiteSteps(store, siteStore, leads, events, resources, config, receipts, this::admitQueued)
                .replacedBy(node.stepHandlers());
        // the engine's own meters (queue depth, job outcomes and times, flows, ledger, retention) on /metrics
        Converge.Builder b = Converge.builder(store).telemetry(t -> t.metrics(meters)).ledger(g -> g.installation(config.tags().installation()));
        node.applyDefaults(b);
        // spans of deliveries, ensure() and leaf calls, when OTEL_* asks for traces (or an embedder set one)
        dev.converge.provisioning.trace.ServiceTracing.openTelemetry().ifPresent(otel -> b.telemetry(t -> t.tracing(otel)));
        if (node.concurrency() > 0) {
            b.queue("default", node.concurrency());
        }
        node.engine().accept(b); // the node's own engine settings: node id, timings, crash plan
        var turns = new dev.converge.provisioning.conversation.TurnJobs(model.turnTimeout());
        if (node.concurrency() > 0) { // the assistant's turns: the handlers read the service once it is built
            b.handle(turns.turn, (ref, ctx) -> assistant.run(ref, ctx)).handle(turns.turnFailed, (ref, ctx) -> assistant.failed(ref, ctx));
        } else {
            b.declare(turns.turn).declare(turns.turnFailed);
        }
        // expired idempotency keys and approvals: one recurring job for the cluster, run where the queue is worked
        if (node.concurrency() > 0) {
            b.handle(ExpiredPurge.TYPE, new ExpiredPurge(store)::run);
        } else {
            b.declare(ExpiredPurge.TYPE);
        }
        b.recurring(ExpiredPurge.recurring(node.purgeEvery()));
        // the orphans a stale delivery leaves at the leaves after its site was deleted: one recurring job for the cluster
        if (node.removeOrphansEvery() != null) {
            if (node.concurrency() > 0) {
                OrphanRemoval removal = new OrphanRemoval(store, resources, () -> engine().ledger(), meters);
                b.handle(OrphanRemoval.TYPE, removal::run);
            } else {
                b.declare(OrphanRemoval.TYPE);
            }
            b.recurring(OrphanRemoval.recurring(node.removeOrphansEvery()));
        }
        // trial reminders and expiries: one recurring job for the cluster, its handler reads the sites once built
        if (node.concurrency() > 0) {
            b.handle(dev.converge.provisioning.site.TrialDeadlines.TYPE, (slot, ctx) -> trials.run(slot, ctx));
        } else {
            b.declare(dev.converge.provisioning.site.TrialDeadlines.TYPE);
        }
        b.recurring(dev.converge.provisioning.site.TrialDeadlines.recurring(
                dev.converge.provisioning.site.TrialDeadlines.every(config.trialReminder())));
        // sites waiting their turn: started as provisionings end, and by one recurring job for the cluster
        if (node.concurrency() > 0) {
            b.handle(dev.converge.provisioning.site.AdmitSites.TYPE, (slot, ctx) -> admitQueued());
        } else {
            b.declare(dev.converge.provisioning.site.AdmitSites.TYPE);
        }
        b.recurring(dev.converge.provisioning.site.AdmitSites.recurring());
        this.engine = steps.register(b, node.jobs(), node.concurrency() > 0).build();
        this.conversations = new dev.converge.provisioning.conversation.Conversations(store, engine, turns,
                model.turnTimeout().plus(model.callTimeout()));
        if (config.mailLookup() != null) {
            // a welcome email whose send started under a worker that then died is settled by asking the mail server
            // (only once a send stopped before its end of DATA can no longer land: the server dropped it)
            dev.converge.token.TokenLookup mail = new dev.converge.token.TokenLookup() {
                private final java.time.Duration window = new dev.converge.provisioning.mail.SmtpMailer(config.smtp())
                        .abandonedSendWindow();

                @Override
                public java.util.Optional<Boolean> wasUsed(String token) {
                    return java.util.Optional.of(config.mailLookup().accepted(token));
                }

                @Override
                public java.time.Duration abandonedUseWindow() {
                    return window;
                }
            };
            engine.tokens().resolveWith(dev.converge.provisioning.flow.SiteJobs.WELCOME_POOL, mail);
            engine.tokens().resolveWith(dev.converge.provisioning.flow.SiteJobs.REMINDER_POOL, mail);
        }
        this.sites = new Sites(store, engine, siteStore, leads, new SiteFlows(node.jobs(), resources, config.flowDeadline()),
                receipts, config.trialWindow(), events, config.subdomainHold(), config.provisioningsInFlight());
        this.admitting = sites;
        this.trials = new dev.converge.provisioning.site.TrialDeadlines(store, engine, siteStore, sites, node.jobs(),
                config.trialReminder());
        this.hand = new dev.converge.provisioning.hand.OperatorActions(store, engine, sites, events);
        ServiceMetrics.bind(meters, engine, store, sites);
        this.assistant = new dev.converge.provisioning.assistant.AssistantTurn(this, conversations, model);
    }

    /**
     * Every timer a histogram with the engine's explicit buckets, unless it chose its own: the HTTP,
     * pool and GC timers would otherwise be summaries, which cannot be added up across nodes.
     */
    private static final io.micrometer.core.instrument.config.MeterFilter HISTOGRAMS =
            new io.micrometer.core.instrument.config.MeterFilter() {
                @Override
                public io.micrometer.core.instrument.distribution.DistributionStatisticConfig configure(
                        io.micrometer.core.instrument.Meter.Id id,
                        io.micrometer.core.instrument.distribution.DistributionStatisticConfig config) {
                    boolean chosen = config.getServiceLevelObjectiveBoundaries() != null
                            && config.getServiceLevelObjectiveBoundaries().length > 0
                            || Boolean.TRUE.equals(config.isPercentileHistogram());
                    if (id.getType() != io.micrometer.core.instrument.Meter.Type.TIMER || chosen) {
                        return config;
                    }
                    return io.micrometer.core.instrument.distribution.DistributionStatisticConfig.builder()
                            .serviceLevelObjectives(java.util.Arrays.stream(dev.converge.metrics.ConvergeMetrics.TIMER_BUCKETS)
                                    .mapToDouble(d -> (double) d.toNanos()).toArray())
                            .build().merge(config);
                }
            };

    /**
     * The JVM's, the process's and the connection pool's meters beside the engine's: memory, GC,
     * threads, classes, CPU, uptime, file descriptors, and the pool's active, idle and pending
     * connections and its wait times (an alert on pending connections reads {@code
     * hikaricp_connections_pending}). A pool that already reports to another registry is left alone.
     */
    private static void bindProcessMeters(PrometheusMeterRegistry meters, Store store) {
        new io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics().bindTo(meters);
        new io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics().bindTo(meters);
        new io.micrometer.core.instrument.binder.jvm.JvmGcMetrics().bindTo(meters);
        new io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics().bindTo(meters);
        new io.micrometer.core.instrument.binder.system.ProcessorMetrics().bindTo(meters);
        new io.micrometer.core.instrument.binder.system.UptimeMetrics().bindTo(meters);
        new io.micrometer.core.instrument.binder.system.FileDescriptorMetrics().bindTo(meters);
        if (store.dataSource() instanceof com.zaxxer.hikari.HikariDataSource pool && pool.getMetricRegistry() == null
                && pool.getMetricsTrackerFactory() == null) {
            pool.setMetricRegistry(meters);
        }
    }

    /** Starts waiting provisionings while there is room (nothing before the service is built). */
    private void admitQueued() {
        Sites s = admitting;
        if (s != null) {
            s.admitQueued();
        }
    }

    /** Migrates the service's schema (the engine's is migrated by the store) and starts the node. */
    public static Provisioning start(Store store, ProvisioningConfig config, NodeOptions node) {
        return start(store, config, node, dev.converge.provisioning.assistant.ModelSettings.none());
    }

    /** As {@link #start(Store, ProvisioningConfig, NodeOptions)}, with the chat model the assistant's turns use. */
    public static Provisioning start(Store store, ProvisioningConfig config, NodeOptions node,
            dev.converge.provisioning.assistant.ModelSettings model) {
        migrate(store);
        Provisioning p = new Provisioning(store, config, node, model);
        p.engine.start();
        return p;
    }

    /** The service's own tables, beside the engine's; on a schema that has them all already, without Flyway. */
    public static void migrate(Store store) {
        store.migrate("classpath:db/provisioning/" + store.database(), "pv_schema_history");
    }

    @Override
    public Store store() {
        return store;
    }

    @Override
    public ProvisioningConfig config() {
        return config;
    }

    @Override
    public PrometheusMeterRegistry meters() {
        return meters;
    }

    @Override
    public Converge engine() {
        return engine;
    }

    @Override
    public Tenants tenants() {
        return tenants;
    }

    @Override
    public Leads leads() {
        return leads;
    }

    @Override
    public Sites sites() {
        return sites;
    }

    /** A person's retries and settlements when automation stops. */
    @Override
    public dev.converge.provisioning.hand.OperatorActions hand() {
        return hand;
    }

    @Override
    public Events events() {
        return events;
    }

    @Override
    public SiteResources resources() {
        return resources;
    }

    /** The job types of the site flows (for enqueueing a step, such as a permitted welcome-email resend). */
    @Override
    public dev.converge.provisioning.flow.SiteJobs jobs() {
        return jobs;
    }

    /** Per-tenant quotas and write rate limits. */
    @Override
    public dev.converge.provisioning.limits.Limits limits() {
        return limits;
    }

    /** The assistant's conversations (their turns run on the nodes that work the queue). */
    @Override
    public dev.converge.provisioning.conversation.Conversations conversations() {
        return conversations;
    }

    @Override
    public void close() {
        engine.close();
        meters.close();
    }
}
