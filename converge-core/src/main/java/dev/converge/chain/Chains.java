package dev.converge.chain;

import dev.converge.batch.internal.JobSpec;
import dev.converge.chain.internal.ChainStore;
import dev.converge.chain.internal.ChainTracker;
import dev.converge.chain.internal.LinkSpec;
import dev.converge.queue.Job;
import dev.converge.queue.internal.EngineRuntime;
import dev.converge.queue.internal.FinishContext;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/** Dispatches chains and reports their progress. Obtained from {@code engine.chains()}. */
public final class Chains {
    private final EngineRuntime rt;
    private final ChainTracker tracker;
    private final Function<Job<?>, JobSpec> encoder;

    Chains(EngineRuntime rt, ChainTracker tracker, Function<Job<?>, JobSpec> encoder) {
        this.rt = rt;
        this.tracker = tracker;
        this.encoder = encoder;
    }

    /** Dispatches the chain in its own transaction; its first link starts now. Returns its id. */
    public long dispatch(Chain chain) {
        List<LinkSpec> links = LinkSpec.of(chain.links(), encoder);
        JobSpec catchJob = chain.catchJob() == null ? null : encoder.apply(chain.catchJob());
        JobSpec finallyJob = chain.finallyJob() == null ? null : encoder.apply(chain.finallyJob());
        FinishContext[] tx = new FinishContext[1];
        long id = rt.store().inTransaction(c -> {
            tx[0] = rt.finishContext(c);
            long chainId = tracker.store().insert(c, chain.name(), links, catchJob, finallyJob, null, tx[0].now());
            tracker.startLink(tx[0], tracker.store().get(c, chainId), 0);
            return chainId;
        });
        tx[0].queuesToWake().forEach(rt.wakeup()::signal);
        return id;
    }

    public Optional<ChainProgress> progress(long chainId) {
        ChainStore.ChainRow row = rt.store().withConnection(c -> tracker.store().get(c, chainId));
        return Optional.ofNullable(row).map(ChainStore.ChainRow::progress);
    }
}
