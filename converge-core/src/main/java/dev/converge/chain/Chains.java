package dev.converge.chain;

import dev.converge.batch.Batch;
import dev.converge.batch.Batches;
import dev.converge.batch.internal.JobSpec;
import dev.converge.chain.internal.ChainStore;
import dev.converge.chain.internal.ChainTracker;
import dev.converge.chain.internal.LinkSpec;
import dev.converge.queue.Job;
import dev.converge.queue.internal.EngineRuntime;
import dev.converge.queue.internal.FinishContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/** Dispatches chains and reports their progress. Obtained from {@code engine.chains()}. */
public final class Chains {
    private final EngineRuntime rt;
    private final ChainTracker tracker;
    private final Batches batches;
    private final Function<Job<?>, JobSpec> encoder;

    public Chains(EngineRuntime rt, ChainTracker tracker, Batches batches, Function<Job<?>, JobSpec> encoder) {
        this.rt = rt;
        this.tracker = tracker;
        this.batches = batches;
        this.encoder = encoder;
    }

    /** Validates and encodes chain links; an unknown job type fails here, before anything is stored. */
    public List<LinkSpec> encodeLinks(List<Object> links) {
        if (links.isEmpty()) {
            throw new IllegalArgumentException("a chain needs at least one link");
        }
        List<LinkSpec> out = new ArrayList<>(links.size());
        for (Object link : links) {
            if (link instanceof Job<?> j) {
                out.add(new LinkSpec(encoder.apply(j), null));
            } else {
                out.add(new LinkSpec(null, batches.encode((Batch) link)));
            }
        }
        return out;
    }

    /** Dispatches the chain in its own transaction; its first link starts now. Returns its id. */
    public long dispatch(Chain chain) {
        List<LinkSpec> links = encodeLinks(chain.links());
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
