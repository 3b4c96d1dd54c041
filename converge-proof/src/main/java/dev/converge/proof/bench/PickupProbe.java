package dev.converge.proof.bench;

import dev.converge.queue.JobType;

/** A pickup-latency job; its handler reports when it started. */
record PickupProbe(int n) {
    static final JobType<PickupProbe> TYPE = JobType.of("bench.pickup", PickupProbe.class).withQueue("bench-pickup");
}
