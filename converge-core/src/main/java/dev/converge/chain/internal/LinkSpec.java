package dev.converge.chain.internal;

import dev.converge.batch.internal.BatchSpec;
import dev.converge.batch.internal.JobSpec;
import dev.converge.chain.Step;
import dev.converge.queue.Job;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** One stored link of a chain: exactly one of a job or a batch. */
public record LinkSpec(JobSpec job, BatchSpec batch) {
    public LinkSpec {
        if ((job == null) == (batch == null)) {
            throw new IllegalArgumentException("a chain link is a job or a batch");
        }
    }

    /** Validates and encodes chain links; an unknown job type fails here, before anything is stored. */
    public static List<LinkSpec> of(List<Step> links, Function<Job<?>, JobSpec> encoder) {
        if (links.isEmpty()) {
            throw new IllegalArgumentException("a chain needs at least one link");
        }
        List<LinkSpec> out = new ArrayList<>(links.size());
        for (Step link : links) {
            if (link instanceof Step.OneJob one) {
                out.add(new LinkSpec(encoder.apply(one.job()), null));
            } else if (link instanceof Step.AllOf all) {
                out.add(new LinkSpec(null, BatchSpec.of(all.batch(), encoder)));
            }
        }
        return out;
    }
}
