package dev.converge;

import dev.converge.batch.Batches;
import dev.converge.batch.internal.JobSpec;
import dev.converge.batch.internal.BatchStore;
import dev.converge.batch.internal.BatchTracker;
import dev.converge.chain.Chains;
import dev.converge.chain.internal.ChainStore;
import dev.converge.chain.internal.ChainTracker;
import dev.converge.flow.Flows;
import dev.converge.flow.internal.Compensator;
import dev.converge.flow.internal.FinishRouter;
import dev.converge.flow.internal.FlowStore;
import dev.converge.flow.internal.FlowTracker;
import dev.converge.ledger.Ledger;
import dev.converge.ledger.internal.LedgerEngine;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import dev.converge.queue.internal.EngineRuntime;
import dev.converge.queue.internal.EngineSettings;
import dev.converge.queue.internal.FinishHook;
import dev.converge.queue.internal.JsonCodec;
import dev.converge.queue.internal.Wiring;
import dev.converge.store.internal.Dialect;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Wires one engine's parts together. The order matters and is the reason this class exists:
 * batches, chains and flows move each other inside the finishing job's transaction (batch ->
 * chain -> flow, and a failing flow cancels its chain and batches), so their trackers are built
 * first and wired to each other; the router over them becomes the runtime's finish hook and
 * cancellation probe; the engine's own job types (compensation, ledger teardown and reaping) are
 * registered before the runtime starts; the public services come last, over the runtime.
 */
final class EngineParts {
    final EngineRuntime runtime;
    final Batches batches;
    final Chains chains;
    final Flows flows;
    final Ledger ledger;
    final dev.converge.token.Tokens tokens;

    EngineParts(Converge.Builder b, EngineSettings settings, JsonCodec codec, Function<Job<?>, JobSpec> encoder,
            Function<Job<?>, Long> enqueue) {
        BatchTracker batchTracker = new BatchTracker(new BatchStore(Dialect.forUrl(b.store.config().url())));
        ChainTracker chainTracker = new ChainTracker(new ChainStore(Dialect.forUrl(b.store.config().url())), batchTracker);
        FlowStore flowStore = new FlowStore(Dialect.forUrl(b.store.config().url()));
        FlowTracker flowTracker = new FlowTracker(flowStore, chainTracker, batchTracker);
        batchTracker.wire(chainTracker);
        chainTracker.wire(flowTracker);
        flowTracker.compensateQueue(b.systemQueue);
        flowTracker.compensationAtLeast(b.compensationAtLeast);
        FinishRouter router = new FinishRouter(batchTracker, chainTracker, flowStore);

        LedgerEngine[] ledgerEngine = new LedgerEngine[1]; // its handlers are registered before it can be built
        dev.converge.token.Tokens[] tokenPool = new dev.converge.token.Tokens[1];
        b.registry.register(dev.converge.token.Tokens.resolveType(b.systemQueue), (p, ctx) -> tokenPool[0].onResolve(p, ctx));
        b.registry.register(LedgerEngine.teardownType(b.systemQueue), (p, ctx) -> ledgerEngine[0].onTeardown(p, ctx));
        b.registry.register(LedgerEngine.resolveType(b.systemQueue), (p, ctx) -> ledgerEngine[0].onResolve(p, ctx));
        Compensator compensator = new Compensator(flowTracker, b.compensationRetry);
        b.registry.register(JobType.of(FlowTracker.COMPENSATE_KIND, Compensator.CompensateFlow.class)
                .withQueue(b.systemQueue).withRetry(RetryPolicy.attempts(100_000)), compensator);

        List<FinishHook> hooks = new ArrayList<>(b.hooks);
        hooks.add(0, router);
        this.runtime = new EngineRuntime(b.store, b.nodeId, settings, b.registry, codec, b.crashPlan, hooks, router,
                LedgerEngine::heldFor);
        compensator.wire(runtime);
        this.batches = Wiring.construct(Batches.class, runtime, batchTracker, encoder);
        this.chains = Wiring.construct(Chains.class, runtime, chainTracker, encoder);
        this.flows = Wiring.construct(Flows.class, runtime, flowTracker, encoder);
        ledgerEngine[0] = new LedgerEngine(runtime, flows, b.resources, b.systemQueue, enqueue, b.tags, encoder);
        this.ledger = Wiring.construct(Ledger.class, ledgerEngine[0]);
        this.tokens = Wiring.construct(dev.converge.token.Tokens.class, runtime, flows, enqueue, b.systemQueue);
        tokenPool[0] = tokens;
    }
}
