package dev.converge.provisioning.site;

import dev.converge.provisioning.config.ProvisioningConfig;
import dev.converge.queue.NodeInfo;
import java.util.List;
import java.util.function.Supplier;

/**
 * How many site provisionings may run at once: a cap given with {@code --provisionings-in-flight}, as given; by
 * default {@value #PER_HANDLER} per handler thread of the live workers on the steps' queue, as the fleet table lists
 * them, and at most {@link ProvisioningConfig#DEFAULT_PROVISIONINGS_IN_FLIGHT}.
 *
 * <p>Every provisioning in flight has a step or two waiting for a handler at any moment. Once the handlers are
 * busy, a flow more does not add work done: it only lengthens the queue every flow waits in, so each takes as
 * long as the whole burst, a site's deadline is spent waiting, and a delete or a teardown (never held back)
 * waits behind them all. A chaos run of 300 sites on 4 workers of 4 handlers each showed it: with 100 in flight,
 * p50 / p99 time to converge 28.9 / 64.0 s and two flows failed by their 60 s deadline; with 20, 20.0 / 30.3 s
 * and none (docs/performance.md). Sites beyond the cap are not refused: they wait, stored, and start in turn.
 *
 * <p>The fleet is read at most every {@link #REFRESH_NANOS} ns, on the caller's thread and outside any
 * transaction of its own. When no live worker works the queue (none has started yet) the most applies,
 * {@link ProvisioningConfig#DEFAULT_PROVISIONINGS_IN_FLIGHT}, the default before this rule; when the fleet cannot
 * be read, the last answer stands until the next read.
 */
final class InFlightCap {
    /** Provisionings per handler thread: enough that a handler finishing a step finds the next one waiting. */
    static final double PER_HANDLER = 1.25;
    static final long REFRESH_NANOS = 5_000_000_000L;

    /** The most provisionings at once when following the workers. */
    private static final int MOST = ProvisioningConfig.DEFAULT_PROVISIONINGS_IN_FLIGHT;

    /** A fixed cap, or 0 to follow the workers. */
    private final int configured;
    private final String queue;
    private final Supplier<List<NodeInfo>> fleet;
    private final long refreshNanos;
    private volatile int current;
    private volatile long readAt;
    private volatile boolean read;

    /**
     * @param configured the cap the service was given, or 0 to follow the workers
     * @param queue      the queue the provisioning steps run on
     * @param fleet      the engine's nodes ({@code Converge::nodes})
     */
    InFlightCap(int configured, String queue, Supplier<List<NodeInfo>> fleet) {
        this(configured, queue, fleet, REFRESH_NANOS);
    }

    InFlightCap(int configured, String queue, Supplier<List<NodeInfo>> fleet, long refreshNanos) {
        if (configured < 0) {
            throw new IllegalArgumentException("the cap must be 0 (follow the workers) or more, was " + configured);
        }
        this.configured = configured;
        this.queue = queue;
        this.fleet = fleet;
        this.refreshNanos = refreshNanos;
        this.current = MOST;
    }

    /** The bound for this many handler threads, before {@link #MOST}. */
    static int forHandlers(int handlers) {
        return (int) Math.ceil(PER_HANDLER * handlers);
    }

    /** The cap now. */
    int get() {
        if (configured > 0) {
            return configured; // an operator's number stands as given
        }
        long now = System.nanoTime();
        if (!read || now - readAt >= refreshNanos) {
            readAt = now;
            read = true;
            current = fromFleet();
        }
        return current;
    }

    private int fromFleet() {
        List<NodeInfo> nodes;
        try {
            nodes = fleet.get();
        } catch (RuntimeException e) {
            return current; // the store is away: keep what was last seen, read again on the next refresh
        }
        long handlers = 0;
        for (NodeInfo n : nodes) {
            if (n.live()) {
                handlers += n.queues().getOrDefault(queue, 0);
            }
        }
        if (handlers <= 0) {
            return MOST;
        }
        return (int) Math.min(MOST, forHandlers((int) Math.min(handlers, 1_000_000)));
    }
}
