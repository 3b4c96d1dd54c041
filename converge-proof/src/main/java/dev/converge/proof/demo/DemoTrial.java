package dev.converge.proof.demo;

import dev.converge.proof.demo.ApiExchange.Answer;
import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.site.Site;
import dev.converge.provisioning.site.SiteState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The demo with a short trial ({@code --trial}): the tenant subscribes a share of its active sites
 * in time, a person clears the cause of a failed site and retries it by hand (then subscribes it),
 * and the demo waits until every other trial has ended, each after one reminder, through its
 * teardown. Everything goes over the HTTP API, as the tenant's backend and its approver would.
 */
final class DemoTrial {
    /** The share of active sites the tenant subscribes. */
    static final double SUBSCRIBED = 0.3;

    private final SiteClient service;
    private final SiteClient approver;
    private final Progress progress;
    private final Random random;
    private int subscribed;
    private long retried = -1;

    DemoTrial(SiteClient service, SiteClient approver, Progress progress, long seed) {
        this.service = service;
        this.approver = approver;
        this.progress = progress;
        this.random = new Random(seed ^ 0x7e1a1L);
    }

    /** Subscribes a share of the tenant's active sites (at least one). */
    void subscribeSome(Provisioning p, long tenantId) throws InterruptedException {
        List<Site> active = new ArrayList<>(p.sites().list(tenantId, SiteState.ACTIVE, 0, 2000));
        Collections.shuffle(active, random);
        int target = active.isEmpty() ? 0 : Math.max(1, (int) Math.round(active.size() * SUBSCRIBED));
        for (Site s : active.subList(0, target)) {
            Answer a = service.subscribe(s.publicId());
            if (a.status() == 200) {
                subscribed++;
            }
        }
        progress.say("subscribed %d of %d active sites; the others' trials run out", subscribed, active.size());
    }

    /**
     * A person retries the failed site whose name someone else held, once that name is free again:
     * over the API with the approver's token and a reason, then waits for it to be active and
     * subscribes it. Returns its id, or -1 if there was none to retry.
     */
    long retryByHand(Provisioning p, long tenantId, String subdomain, java.util.function.Predicate<String> release,
            Duration timeout) throws InterruptedException {
        Site failed = p.sites().list(tenantId, SiteState.FAILED, 0, 2000).stream()
                .filter(s -> s.subdomain().equals(subdomain)).findFirst().orElse(null);
        if (failed == null || !release.test(subdomain)) {
            progress.say("no failed site to retry by hand");
            return -1;
        }
        Answer a = approver.retrySite(failed.publicId(), "the other customer gave the name " + subdomain + " up");
        progress.say("retried failed site %d (%s) by hand: %s", failed.id(), subdomain, a.json().path("detail").asText());
        long end = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < end) {
            SiteState st = p.sites().get(tenantId, failed.id()).map(Site::state).orElse(SiteState.FAILED);
            if (st == SiteState.ACTIVE) {
                if (service.subscribe(failed.publicId()).status() == 200) {
                    subscribed++;
                }
                retried = failed.id();
                progress.say("site %d is active after its retry, and subscribed", failed.id());
                return retried;
            }
            if (st != SiteState.PROVISIONING) {
                break;
            }
            Thread.sleep(200);
        }
        progress.say("site %d did not become active after its retry", failed.id());
        return -1;
    }

    /** Waits until no trial runs on a site that is up (every unsubscribed one has expired), or the time is out. */
    static void awaitTrialsEnded(Provisioning p, Progress progress, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        long lastSaid = 0;
        while (true) {
            Map<String, Long> n = counts(p);
            boolean done = n.get("running") == 0;
            if (done || System.nanoTime() - lastSaid > 5_000_000_000L) {
                progress.say("trials: %d running, %d subscribed, %d expired", n.get("running"), n.get("subscribed"),
                        n.get("expired"));
                lastSaid = System.nanoTime();
            }
            if (done || System.nanoTime() > end) {
                return;
            }
            Thread.sleep(500);
        }
    }

    private static Map<String, Long> counts(Provisioning p) {
        return p.store().withConnection(c -> {
            try (var st = c.createStatement(); var rs = st.executeQuery("SELECT "
                    + "SUM(CASE WHEN subscription = 'trial' AND trial_ends_at IS NOT NULL AND state IN ('provisioning', "
                    + "'active') THEN 1 ELSE 0 END), SUM(CASE WHEN subscription = 'subscribed' THEN 1 ELSE 0 END), "
                    + "SUM(CASE WHEN subscription = 'expired' THEN 1 ELSE 0 END) FROM pv_site")) {
                rs.next();
                return Map.of("running", rs.getLong(1), "subscribed", rs.getLong(2), "expired", rs.getLong(3));
            }
        });
    }

    int subscribed() {
        return subscribed;
    }

    long retried() {
        return retried;
    }
}
