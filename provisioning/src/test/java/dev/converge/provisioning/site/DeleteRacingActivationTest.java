package dev.converge.provisioning.site;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.ProvisioningFixture;
import dev.converge.provisioning.tenant.Tenants;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A delete that meets the site's move to active (or any other move) in between its read and its
 * conditional write starts the teardown all the same: the caller is never told "try again" for a
 * race that is the service's to settle. Per site, a delete and a confirmation are released together
 * on two threads.
 */
class DeleteRacingActivationTest {
    private static final int SITES = 60;

    @Test
    void aDeleteRacingTheConfirmationAlwaysStartsTheTeardown() throws Exception {
        try (ProvisioningFixture f = new ProvisioningFixture()) {
            Provisioning p = f.service();
            Tenants.Created t = p.tenants().create("racing");
            long tenant = t.tenant().id();
            long lead = p.leads().create(tenant, "Ada", "ada@example.com").id();
            SiteStore sites = new SiteStore(p.store());
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < SITES; i++) {
                ids.add(((Sites.Created) p.sites().request(tenant, new SiteRequest(lead, "race-del-" + i, null, null))).site().id());
            }
            ExecutorService pool = Executors.newFixedThreadPool(2);
            int refused = 0;
            try {
                for (long id : ids) {
                    CyclicBarrier together = new CyclicBarrier(2);
                    Future<Boolean> delete = pool.submit(() -> {
                        together.await();
                        try {
                            return p.sites().delete(tenant, id).isPresent();
                        } catch (IllegalStateException raced) {
                            return false;
                        }
                    });
                    Future<Boolean> confirm = pool.submit(() -> {
                        together.await();
                        return p.store().inTransaction(c -> sites.confirm(c, id, "{}", null));
                    });
                    confirm.get(30, TimeUnit.SECONDS);
                    if (!delete.get(30, TimeUnit.SECONDS)) {
                        refused++;
                    }
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(refused).as("deletes refused because the site moved meanwhile").isZero();
            for (long id : ids) {
                assertThat(p.sites().get(tenant, id).orElseThrow().state()).as("site %d", id)
                        .isIn(SiteState.DELETING, SiteState.DELETED);
            }
        }
    }
}
