package dev.converge.crash;

import dev.converge.time.EngineClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/** Real time plus an offset a test can push forward: backoffs still elapse, and leases can be expired at once. */
final class OffsetClock implements EngineClock {
    private final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

    @Override
    public Instant sqlNow() {
        return Instant.now().plus(offset.get());
    }

    @Override
    public Instant localNow() {
        return sqlNow();
    }

    void advance(Duration d) {
        offset.updateAndGet(o -> o.plus(d));
    }
}
