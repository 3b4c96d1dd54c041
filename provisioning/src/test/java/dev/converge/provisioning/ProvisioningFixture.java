package dev.converge.provisioning;

import dev.converge.provisioning.config.ProvisioningConfig;
import dev.converge.provisioning.flow.SiteJobs;
import dev.converge.queue.RetryPolicy;
import dev.converge.store.Store;
import dev.converge.testkit.TestStores;
import dev.converge.time.EngineClock;
import java.time.Duration;

/**
 * The whole service for a test: simulated leaves and SMTP on loopback, a private H2 store, and a
 * working node with test-speed timings. Close it to stop everything.
 */
public final class ProvisioningFixture implements AutoCloseable {
    private final LocalLeaves leaves;
    private final Store store;
    private final Provisioning service;
    private final boolean ownLeaves;

    public ProvisioningFixture() {
        this(Duration.ofDays(14));
    }

    public ProvisioningFixture(Duration trialWindow) {
        this(trialWindow, dev.converge.provisioning.assistant.ModelSettings.none());
    }

    /** With the chat model the assistant's turns use. */
    public ProvisioningFixture(Duration trialWindow, dev.converge.provisioning.assistant.ModelSettings model) {
        this(LocalLeaves.start(42), true, trialWindow, model, null, ExpiredPurge.DEFAULT_EVERY);
    }

    /** With the test configuration changed by {@code configure}. */
    public ProvisioningFixture(java.util.function.UnaryOperator<ProvisioningConfig> configure) {
        this(LocalLeaves.start(42), true, Duration.ofDays(14), dev.converge.provisioning.assistant.ModelSettings.none(),
                null, ExpiredPurge.DEFAULT_EVERY, configure, java.util.function.UnaryOperator.identity());
    }

    /** With the node's options changed by {@code node}, after the fixture's own. */
    public static ProvisioningFixture withNode(java.util.function.UnaryOperator<NodeOptions> node) {
        return new ProvisioningFixture(LocalLeaves.start(42), true, Duration.ofDays(14),
                dev.converge.provisioning.assistant.ModelSettings.none(), null, ExpiredPurge.DEFAULT_EVERY,
                java.util.function.UnaryOperator.identity(), node);
    }

    /** With the recurring purge of expired idempotency keys and approvals every {@code purgeEvery}. */
    public ProvisioningFixture(Duration trialWindow, Duration purgeEvery) {
        this(LocalLeaves.start(42), true, trialWindow, dev.converge.provisioning.assistant.ModelSettings.none(), null,
                purgeEvery);
    }

    /**
     * Another installation against leaves someone else started (and closes): its own store, its
     * resources tagged with {@code tags}.
     */
    public ProvisioningFixture(LocalLeaves shared, dev.converge.ledger.ResourceTags tags) {
        this(shared, false, Duration.ofDays(14), dev.converge.provisioning.assistant.ModelSettings.none(), tags,
                ExpiredPurge.DEFAULT_EVERY);
    }

    private ProvisioningFixture(LocalLeaves leaves, boolean ownLeaves, Duration trialWindow,
            dev.converge.provisioning.assistant.ModelSettings model, dev.converge.ledger.ResourceTags tags,
            Duration purgeEvery) {
        this(leaves, ownLeaves, trialWindow, model, tags, purgeEvery, java.util.function.UnaryOperator.identity(),
                java.util.function.UnaryOperator.identity());
    }

    private ProvisioningFixture(LocalLeaves leaves, boolean ownLeaves, Duration trialWindow,
            dev.converge.provisioning.assistant.ModelSettings model, dev.converge.ledger.ResourceTags tags,
            Duration purgeEvery, java.util.function.UnaryOperator<ProvisioningConfig> configure,
            java.util.function.UnaryOperator<NodeOptions> nodeChange) {
        this.leaves = leaves;
        this.ownLeaves = ownLeaves;
        this.store = TestStores.h2(true, EngineClock.database());
        ProvisioningConfig config = leaves.config(trialWindow, Duration.ofMinutes(2), null, Duration.ofSeconds(2))
                .withTags(tags);
        config = configure.apply(config);
        SiteJobs fast = new SiteJobs(RetryPolicy.attempts(6).backoff(Duration.ofMillis(50)).cappedAt(Duration.ofMillis(400)),
                Duration.ofSeconds(20));
        NodeOptions node = NodeOptions.defaults().withConcurrency(8).withJobs(fast)
                .withEngine(b -> b.leases(l -> l.duration(Duration.ofSeconds(5))).queues(q -> q.poll(Duration.ofMillis(100)))
                        .maintenance(m -> m.watchdog(Duration.ofMillis(500))).ledger(g -> g.reaper(Duration.ofMillis(500), Duration.ofSeconds(30))))
                .withPurgeEvery(purgeEvery);
        node = nodeChange.apply(node);
        this.service = Provisioning.start(store, config, node, model);
    }

    public Provisioning service() {
        return service;
    }

    public LocalLeaves leaves() {
        return leaves;
    }

    @Override
    public void close() {
        service.close();
        store.close();
        if (ownLeaves) {
            leaves.close();
        }
    }
}
