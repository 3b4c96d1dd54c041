package dev.converge.proof.demo;

import dev.converge.proof.demo.ApiExchange.Answer;
import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.site.Site;
import dev.converge.provisioning.site.SiteState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The demo's client side: a lead and a site request per site over HTTP, some requests sent again
 * with the same key (the answer must be a byte-identical replay), then some active sites deleted.
 */
final class DemoTraffic {
    private final SiteClient client;
    private final DemoSettings settings;
    private final Progress progress;
    private final Random random;
    private final AtomicInteger resent = new AtomicInteger();
    private final AtomicInteger identical = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();
    private final AtomicInteger deleted = new AtomicInteger();
    private final AtomicInteger taken = new AtomicInteger();
    private final java.util.function.Predicate<String> someoneElseTakes;

    /**
     * @param someoneElseTakes creates a repository of this name at the git host that is not ours (as
     *                         another customer of the git host would): that site must fail with a
     *                         conflict, and its flow must tear down what its siblings created; false
     *                         if the name could not be taken (the site then simply provisions)
     */
    DemoTraffic(SiteClient client, DemoSettings settings, Progress progress,
            java.util.function.Predicate<String> someoneElseTakes) {
        this.client = client;
        this.settings = settings;
        this.progress = progress;
        this.random = new Random(settings.seed());
        this.someoneElseTakes = someoneElseTakes;
    }

    /** Requests every site; returns the ids the service accepted. */
    Set<String> requestSites() throws Exception {
        Set<String> accepted = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> all = new ArrayList<>();
            for (int i = 0; i < settings.sites(); i++) {
                int n = i;
                boolean resend = random.nextDouble() < 0.2;
                // with a trial to watch, the first site's name is always taken: a person retries it by hand later
                boolean takenElsewhere = random.nextDouble() < 0.04 || settings.trial() != null && n == 0;
                all.add(pool.submit(() -> {
                    if (takenElsewhere && someoneElseTakes.test(subdomain(n))) {
                        taken.incrementAndGet();
                    }
                    requestOne(n, resend, accepted);
                    return null;
                }));
            }
            for (Future<?> f : all) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        progress.say("%d site requests accepted (%d refused); %d sent again with the same key, %d answered with an "
                + "identical replay; %d repositories taken by someone else first", accepted.size(), refused.get(),
                resent.get(), identical.get(), taken.get());
        return accepted;
    }

    private void requestOne(int n, boolean resend, Set<String> accepted) throws InterruptedException {
        Answer lead = client.createLead("Lead " + n, "lead" + n + "@example.com");
        if (lead.status() != 201) {
            refused.incrementAndGet();
            return;
        }
        String leadId = lead.json().path("id").asText();
        String key = "demo-" + settings.seed() + "-" + n;
        String subdomain = subdomain(n);
        Answer first = client.requestSite(key, leadId, subdomain);
        if (first.status() != 202) {
            refused.incrementAndGet();
            return;
        }
        accepted.add(Demo.siteIdOf(first.json()));
        if (resend) {
            resent.incrementAndGet();
            Answer again = client.requestSite(key, leadId, subdomain);
            if (again.status() == first.status() && again.body().equals(first.body()) && again.replayed()) {
                identical.incrementAndGet();
            }
        }
    }

    String subdomain(int n) {
        return "shop-" + Long.toString(settings.seed(), 36) + "-" + n;
    }

    /** Deletes a share of the active sites (and one still provisioning, if any, to exercise that path). */
    void deleteSome(Provisioning service, long tenantId) throws InterruptedException {
        List<Site> sites = service.sites().list(tenantId, null, 0, 2000);
        List<Site> active = sites.stream().filter(s -> s.state() == SiteState.ACTIVE).toList();
        int target = (int) Math.round(active.size() * settings.teardownFraction());
        List<Site> chosen = new ArrayList<>(active);
        java.util.Collections.shuffle(chosen, random);
        for (Site s : chosen.subList(0, Math.min(target, chosen.size()))) {
            if (client.deleteSite(s.publicId()).status() == 202) {
                deleted.incrementAndGet();
            }
        }
        progress.say("deleting %d of %d active sites", deleted.get(), active.size());
    }

    static Map<String, Integer> sitesByState(Provisioning service) {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (SiteState s : SiteState.values()) {
            out.put(s.sql(), 0);
        }
        service.store().withConnection(c -> {
            try (var st = c.createStatement(); var rs = st.executeQuery("SELECT state, COUNT(*) FROM pv_site GROUP BY state")) {
                while (rs.next()) {
                    out.put(rs.getString(1), rs.getInt(2));
                }
            }
            return null;
        });
        return out;
    }

    Map<String, Long> tally() {
        Map<String, Long> t = new LinkedHashMap<>();
        t.put("http_requests", client.requests.get());
        t.put("retried_same_key", client.retries.get());
        t.put("resent_same_key", (long) resent.get());
        t.put("identical_replays", (long) identical.get());
        t.put("refused", (long) refused.get());
        t.put("deletes", (long) deleted.get());
        t.put("taken_elsewhere", (long) taken.get());
        return t;
    }
}
