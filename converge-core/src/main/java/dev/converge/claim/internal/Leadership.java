package dev.converge.claim.internal;

import dev.converge.claim.Claim;
import dev.converge.claim.Claims;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a periodic task on at most one node at a time: the node that holds a claim on the
 * task's key, renewed every round. Any node may run it; when the holder dies its claim expires
 * and another takes over. The task itself must still be safe to overlap (a paused leader may
 * wake up once after losing the claim): ours are, being conditional updates.
 */
public final class Leadership implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Leadership.class);

    private final Claims claims;
    private final String key;
    private final Duration every;
    private final java.util.function.Supplier<String> task;
    private final LeaderRounds rounds;
    private final String name;
    private final ScheduledExecutorService timer;
    private volatile Claim held;

    public Leadership(Claims claims, String key, Duration every, Runnable task) {
        this(claims, key, every, () -> {
            task.run();
            return null;
        }, null, null);
    }

    /**
     * A task whose rounds are recorded in {@code rounds} under {@code name}: it answers what a round
     * changed, in a sentence, or null when it changed nothing.
     */
    public Leadership(Claims claims, String key, Duration every, java.util.function.Supplier<String> task,
            LeaderRounds rounds, String name) {
        this.claims = claims;
        this.key = key;
        this.every = every;
        this.task = task;
        this.rounds = rounds;
        this.name = name;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "converge-" + key.replace(':', '-'));
            t.setDaemon(true);
            return t;
        });
    }

    public Leadership start() {
        timer.scheduleWithFixedDelay(this::round, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    /** One round: keep or take the claim, then run the task if we hold it. */
    public boolean round() {
        try {
            Duration ttl = every.multipliedBy(3);
            if (held != null && !claims.extend(held, ttl)) {
                held = null;
            }
            if (held == null) {
                Optional<Claim> got = claims.add(key, ttl);
                if (got.isPresent()) {
                    held = got.get();
                    log.info("this node now runs {}", key);
                }
            }
            if (held != null) {
                String detail;
                try {
                    detail = task.get();
                } catch (RuntimeException e) {
                    if (rounds != null) {
                        rounds.record(name, false, String.valueOf(e.getMessage()));
                    }
                    throw e;
                }
                if (rounds != null) {
                    rounds.record(name, true, detail);
                }
                return true;
            }
        } catch (RuntimeException e) {
            log.warn("{} round failed: {}", key, e.getMessage());
        }
        return false;
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (held != null) {
            try {
                claims.release(held);
            } catch (RuntimeException e) {
                log.debug("could not release {} on close", key, e);
            }
        }
    }
}
