package dev.converge.chain.internal;

import dev.converge.chain.Chain;
import dev.converge.chain.ChainProgress;
import dev.converge.chain.Chains;

import dev.converge.batch.internal.JobSpec;
import dev.converge.queue.Job;
import dev.converge.queue.internal.EngineRuntime;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/** The engine's {@link Chains}. */
public final class ChainService implements Chains {
    private final EngineRuntime rt;
    private final ChainTracker tracker;
    private final Function<Job<?>, JobSpec> encoder;

    public ChainService(EngineRuntime rt, ChainTracker tracker, Function<Job<?>, JobSpec> encoder) {
        this.rt = rt;
        this.tracker = tracker;
        this.encoder = encoder;
    }

    /** Dispatches the chain in its own transaction; its first link starts now. Returns its id. */
    public long start(Chain chain) {
        List<LinkSpec> links = LinkSpec.of(chain.links(), encoder);
        JobSpec catchJob = chain.onFailureJob() == null ? null : encoder.apply(chain.onFailureJob());
        JobSpec finallyJob = chain.onEndJob() == null ? null : encoder.apply(chain.onEndJob());
        return rt.inFinishTransaction(tx -> {
            long chainId = tracker.store().insert(tx.connection(), chain.name(), links, catchJob, finallyJob, null, tx.now());
            tracker.startLink(tx, tracker.store().get(tx.connection(), chainId), 0);
            return chainId;
        });
    }

    public Optional<ChainProgress> progress(long chainId) {
        ChainStore.ChainRow row = rt.store().withConnection(c -> tracker.store().get(c, chainId));
        return Optional.ofNullable(row).map(ChainStore.ChainRow::progress);
    }
}
