package dev.converge.provisioning.site;

import dev.converge.provisioning.Provisioning;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/** Samples, every few milliseconds until closed, the most site provisionings in flight (admitted, not ended). */
final class InFlightSampler implements AutoCloseable {
    private final AtomicLong most = new AtomicLong();
    private final AtomicBoolean sampling = new AtomicBoolean(true);
    private final Thread thread;

    InFlightSampler(Provisioning p, long everyMillis) {
        thread = new Thread(() -> {
            while (sampling.get()) {
                most.accumulateAndGet(count(p, "SELECT COUNT(*) FROM pv_site WHERE state = 'provisioning' "
                        + "AND provision_flow_id IS NOT NULL"), Math::max);
                try {
                    Thread.sleep(everyMillis);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "in-flight-sampler");
        thread.start();
    }

    /** The most seen so far. */
    long most() {
        return most.get();
    }

    @Override
    public void close() throws InterruptedException {
        sampling.set(false);
        thread.join();
    }

    static long count(Provisioning p, String sql) {
        return p.store().withConnection(c -> {
            try (var st = c.createStatement(); var rs = st.executeQuery(sql)) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }
}
