package dev.converge.chain;

import dev.converge.batch.internal.JobSpec;
import dev.converge.chain.internal.ChainStore;
import dev.converge.chain.internal.ChainTracker;
import dev.converge.chain.internal.LinkSpec;
import dev.converge.queue.Job;
import dev.converge.queue.internal.EngineRuntime;
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
