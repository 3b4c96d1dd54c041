package dev.converge;

import dev.converge.store.internal.Dialects;
import dev.converge.batch.Batches;
import dev.converge.batch.internal.BatchService;
import dev.converge.batch.internal.BatchStore;
import dev.converge.batch.internal.BatchTracker;
import dev.converge.batch.internal.JobSpec;
import dev.converge.chain.Chains;
import dev.converge.chain.internal.ChainService;
import dev.converge.chain.internal.ChainStore;
import dev.converge.chain.internal.ChainTracker;
import dev.converge.flow.internal.Compensator;
import dev.converge.flow.internal.CompletionRouter;
import dev.converge.flow.internal.FlowService;
import dev.converge.flow.internal.FlowStore;
import dev.converge.flow.internal.FlowTracker;
import dev.converge.handler.internal.EngineServices;
import dev.converge.handler.internal.JobHandlers;
import dev.converge.ledger.internal.LedgerEngine;
import dev.converge.queue.EnqueueResult;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import dev.converge.queue.internal.EngineObservers;
import dev.converge.queue.internal.EngineRuntime;
import dev.converge.queue.internal.EngineSettings;
import dev.converge.queue.internal.FinishHook;
import dev.converge.queue.internal.HandlerRegistry;
import dev.converge.queue.internal.JsonCodec;
import dev.converge.store.internal.Dialect;
import dev.converge.token.internal.TokenService;
import dev.converge.crash.CrashPlan;
import dev.converge.handler.JobHandler;
import dev.converge.ledger.ResourceTags;
import dev.converge.ledger.internal.ResourceTypes;
import dev.converge.store.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Function;

/**
 * Builds one engine's parts, top-down, each by its constructor and each from parts already
 * built:
 *
 * <ol>
 *   <li>the trackers, bottom to top: batches, chains over batches, flows over both (a failing flow
 *       cancels its chain and batches: calls go down only);</li>
 *   <li>the {@link CompletionRouter} over them: the one way a finished job's end goes up (batch, then
 *       chain, then flow), in the finishing transaction, and the cancellation probe;</li>
 *   <li>the runtime (queue workers' shared state), with the router as its first finish hook and
 *       the engine's observers;</li>
 *   <li>the services over the runtime: flows, ledger (over flows), tokens (over flows);</li>
 *   <li>the handlers, last, as each needs the services: the engine's own job types (token and
 *       ledger settling, compensation) and the application's, whose context binds the services to
 *       each delivery.</li>
 * </ol>
 *
 * The handler registry is filled after the runtime exists and before any node starts: the
 * runtime reads it only when it leases or runs a job.
 */
final class EngineParts {
    final EngineRuntime runtime;
    final Batches batches;
    final Chains chains;
    final FlowService flows;
    final LedgerEngine ledger;
    final TokenService tokens;

    /** A job type with the application's handler for it, as the builder was given them. */
    record Handled<T>(JobType<T> type, JobHandler<T> handler) {
    }

    /** What the builder was told that the parts need. */
    record Options(Store store, String nodeId, HandlerRegistry registry, List<FinishHook> hooks, String systemQueue,
            Duration compensationAtLeast, RetryPolicy compensationRetry, CrashPlan crashPlan, ResourceTypes resources,
            ResourceTags tags, Collection<Handled<?>> handled) {
    }

    EngineParts(Options o, EngineSettings settings, JsonCodec codec, Function<Job<?>, JobSpec> encoder,
            Function<Job<?>, EnqueueResult> enqueue) {
        Dialect dialect = Dialects.forUrl(o.store().config().url(), o.store().config().schema());
        EngineObservers events = new EngineObservers();
        BatchTracker batchTracker = new BatchTracker(new BatchStore(dialect));
        ChainTracker chainTracker = new ChainTracker(new ChainStore(dialect), batchTracker);
        FlowTracker flowTracker = new FlowTracker(new FlowStore(dialect), chainTracker, batchTracker, events,
                o.systemQueue(), o.compensationAtLeast());
        CompletionRouter router = new CompletionRouter(batchTracker, chainTracker, flowTracker);

        List<FinishHook> hooks = new ArrayList<>(o.hooks());
        hooks.add(0, router);
        this.runtime = new EngineRuntime(o.store(), o.nodeId(), settings, o.registry(), codec, o.crashPlan(), hooks, router,
                LedgerEngine::heldFor, events);

        Function<Job<?>, Long> enqueueId = j -> enqueue.apply(j).jobId();
        this.batches = new BatchService(runtime, batchTracker, encoder);
        this.chains = new ChainService(runtime, chainTracker, encoder);
        this.flows = new FlowService(runtime, flowTracker, encoder);
        this.ledger = new LedgerEngine(runtime, flows, o.resources(), o.systemQueue(), enqueueId, o.tags(), encoder);
        this.tokens = new TokenService(runtime, flows, enqueueId, o.systemQueue());

        HandlerRegistry registry = o.registry();
        registry.register(TokenService.resolveType(o.systemQueue()), tokens::onResolve);
        registry.register(LedgerEngine.teardownType(o.systemQueue()), ledger::onTeardown);
        registry.register(LedgerEngine.resolveType(o.systemQueue()), ledger::onResolve);
        registry.register(JobType.of(FlowTracker.COMPENSATE_KIND, Compensator.CompensateFlow.class)
                .withQueue(o.systemQueue()).withRetry(RetryPolicy.attempts(100_000)),
                new Compensator(flowTracker, o.compensationRetry(), runtime));
        EngineServices services = new EngineServices(ledger, flows, tokens, enqueue);
        for (Handled<?> h : o.handled()) {
            register(registry, h, services);
        }
    }

    private static <T> void register(HandlerRegistry registry, Handled<T> h, EngineServices services) {
        registry.register(h.type(), JobHandlers.adapt(h.handler(), services));
    }
}
