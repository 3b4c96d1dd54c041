package dev.converge.provisioning.leaf;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.leafsim.LeafSim;
import dev.converge.ledger.LeafResource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A lookup that says "absent" must mean absent: teardown releases an uncertain entry on it, and a
 * create is sent again on it. The license leaf has no lookup by domain, so the driver reads its
 * whole site list; while other sites are deleted (a wave of expiries), the sites still there must
 * all be seen. A list read in numbered pages would skip the site that moves from the second page
 * to the first when a site of the first page is deleted between the two reads (a chaos run at
 * 1,000 sites with trials left a license orphaned that way).
 */
class LookupUnderDeletesTest {

    @Test
    void aLicenseThatStaysIsFoundWhileOthersAreDeleted() throws Exception {
        try (SimulatedLeaves leaves = new SimulatedLeaves()) {
            LicenseDriver license = leaves.license();
            List<LeafResource> doomed = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                doomed.add(license.create("gone" + i + ".sites.example", "converge:default:site-" + i, null));
            }
            // the site looked for, right after the first page of 100
            List<String> stay = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                String domain = "stay" + i + ".sites.example";
                license.create(domain, "converge:default:site-" + (1000 + i), null);
                stay.add(domain);
            }
            AtomicBoolean deleting = new AtomicBoolean(true);
            Thread deleter = new Thread(() -> {
                for (LeafResource r : doomed) {
                    license.delete(r.leafId());
                }
                deleting.set(false);
            });
            AtomicInteger missed = new AtomicInteger();
            AtomicInteger lookups = new AtomicInteger();
            deleter.start();
            while (deleting.get()) {
                String domain = stay.get(lookups.getAndIncrement() % stay.size());
                if (license.find(domain).isEmpty()) {
                    missed.incrementAndGet();
                }
            }
            deleter.join();
            assertThat(lookups.get()).as("lookups made while the deletes ran").isPositive();
            assertThat(missed.get()).as("sites that exist but a lookup said absent, of %d lookups", lookups.get()).isZero();
        }
    }
}
