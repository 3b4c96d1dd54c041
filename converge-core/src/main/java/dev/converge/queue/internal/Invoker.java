package dev.converge.queue.internal;

import dev.converge.crash.SimulatedCrash;
import dev.converge.lease.LeaseLost;
import dev.converge.queue.JobCancelledException;
import dev.converge.queue.NonRetryableException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one delivery's handler: decodes the payload, arms the timeout, tells the listeners, and
 * turns what the handler did (returned, released, threw) into the outcome the completer records.
 */
final class Invoker {
    private static final Logger log = LoggerFactory.getLogger(Invoker.class);

    private final Shared node;
    private final JsonCodec codec;
    private final Function<Throwable, Duration> waitsBehind;

    Invoker(Shared node, JsonCodec codec, Function<Throwable, Duration> waitsBehind) {
        this.node = node;
        this.codec = codec;
        this.waitsBehind = waitsBehind;
    }

    /** Runs one delivery's handler; returns its outcome, or null when the delivery must write nothing. */
    Outcome invoke(RunningJob r) {
        HandlerRegistry registry = node.registry;
        EngineObservers events = node.events;
        LeasedJob job = r.job;
        HandlerRegistry.Registered<?> reg = node.registry.get(job.kind());
        if (reg == null || reg.handler() == null) {
            return new Outcome.Failed("no handler for job type '" + job.kind() + "' on node " + node.nodeId, false);
        }
        Object payload;
        try {
            payload = codec.read(job.payload(), reg.type().payloadType(), job.kind());
        } catch (RuntimeException e) {
            return new Outcome.Failed(e.getMessage(), false);
        }
        DefaultDelivery ctx = new DefaultDelivery(node, r);
        Duration timeout = job.timeoutMs() != null ? Duration.ofMillis(job.timeoutMs()) : reg.type().timeout();
        ScheduledFuture<?> timer = timeout == null ? null : node.timers.schedule(() -> {
            Thread t = r.thread;
            if (t != null) {
                r.timedOut = true;
                t.interrupt();
            }
        }, timeout.toMillis(), TimeUnit.MILLISECONDS);
        EngineObserver.Activity around = events.running(job);
        long startNanos = System.nanoTime();
        if (!events.isEmpty() && job.runAt() != null) {
            Instant now = node.store.clock().localNow();
            // due since the later of its run time and its creation: a continuation is due since its flow began
            // (it sorts first), but it did not wait before it existed
            Instant due = job.createdAt() != null && job.createdAt().isAfter(job.runAt()) ? job.createdAt() : job.runAt();
            events.started(job, Math.max(0, now.toEpochMilli() - due.toEpochMilli()));
        }
        Throwable thrown = null;
        try {
            try {
                call(reg.handler(), payload, ctx);
            } catch (Throwable t) {
                thrown = t;
                throw t;
            }
            if (r.timedOut) {
                return new Outcome.Failed("timed out after " + timeout.toMillis() + "ms", true);
            }
            return ctx.releaseDelay() != null ? new Outcome.Released(ctx.releaseDelay().toMillis(), ctx.refund()) : Outcome.SUCCEEDED;
        } catch (SimulatedCrash crash) {
            throw crash;
        } catch (LeaseLost e) {
            r.markLost(e.getMessage());
            return null;
        } catch (JobCancelledException e) {
            return new Outcome.Cancelled(e.getMessage());
        } catch (NonRetryableException e) {
            return new Outcome.Failed(Shared.describe(e), false);
        } catch (Throwable e) {
            if (r.lost) {
                return null;
            }
            if (r.timedOut) {
                return new Outcome.Failed("timed out after " + timeout.toMillis() + "ms: " + Shared.describe(e), true);
            }
            if (r.shutdownInterrupted) {
                return new Outcome.Released(0, false);
            }
            Duration held = waitsBehind.apply(e);
            if (held != null) {
                // waiting behind another live owner is not a failure: look again later, attempt refunded
                long wait = held.toMillis();
                long delay = wait + ThreadLocalRandom.current().nextLong(wait / 2 + 1);
                log.debug("job {} ({}) waits {}ms: {}", job.id(), job.kind(), delay, e.getMessage());
                return new Outcome.Released(delay, true);
            }
            return new Outcome.Failed(Shared.describe(e), true);
        } finally {
            end(around, thrown);
            if (!events.isEmpty()) {
                events.ran(job, System.nanoTime() - startNanos);
            }
            if (timer != null) {
                timer.cancel(false);
            }
            Thread.interrupted(); // a late timeout or heartbeat interrupt must not leak into the next job
        }
    }

    private static void end(EngineObserver.Activity around, Throwable thrown) {
        try {
            around.end(thrown == null ? "ok" : "error", thrown);
        } catch (RuntimeException e) {
            log.debug("a listener failed to end a delivery", e);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> void call(DeliveryHandler<T> handler, Object payload, DefaultDelivery ctx) throws Exception {
        handler.handle((T) payload, ctx);
    }
}
