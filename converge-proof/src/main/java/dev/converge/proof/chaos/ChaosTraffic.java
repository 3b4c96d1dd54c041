package dev.converge.proof.chaos;

import dev.converge.proof.demo.ApiExchange.Answer;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The client's side of a chaos run: a lead and a site request per site, spread over the traffic
 * window; some requests sent again with the same key (the answer must be a replay); a share of
 * the sites deleted — a few at once, while still provisioning, the rest once they are active.
 * Records what the service said it accepted, and when: the checker holds it to exactly that.
 */
final class ChaosTraffic {
    private final ChaosClient client;
    private final ChaosSettings settings;
    private final Consumer<String> say;
    private final boolean[] resend;
    private final boolean[] delete;
    private final boolean[] deleteAtOnce;
    private final boolean[] subscribe;
    private final Set<String> toSubscribe = ConcurrentHashMap.newKeySet();
    private final AtomicLong subscribed = new AtomicLong();
    private final AtomicLong subscribeRefused = new AtomicLong();
    private final Map<String, Instant> acceptedSites = new ConcurrentHashMap<>();
    private final Map<String, Instant> acceptedDeletes = new ConcurrentHashMap<>();
    private final Set<String> toDelete = ConcurrentHashMap.newKeySet();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong acceptedEarlier = new AtomicLong();
    private final AtomicLong resent = new AtomicLong();
    private final AtomicLong identical = new AtomicLong();
    private final AtomicLong deletesRefused = new AtomicLong();
    private final AtomicLong notDeletable = new AtomicLong();
    private final AtomicLong answered = new AtomicLong();
    private final ScheduledExecutorService pool;
    private final Thread deleter;
    private volatile Instant deleteUntil;

    ChaosTraffic(ChaosClient client, ChaosSettings settings, Consumer<String> say) {
        this.client = client;
        this.settings = settings;
        this.say = say;
        Random random = new Random(settings.seed());
        int n = settings.sites();
        resend = new boolean[n];
        delete = new boolean[n];
        deleteAtOnce = new boolean[n];
        subscribe = new boolean[n];
        // its own stream, so a run with a trial makes the same other choices as one without
        Random subscribing = new Random(settings.seed() ^ 0x5b5cL);
        for (int i = 0; i < n; i++) {
            resend[i] = random.nextDouble() < 0.1;
            delete[i] = random.nextDouble() < settings.deleteShare();
            deleteAtOnce[i] = delete[i] && random.nextDouble() < 0.25;
            subscribe[i] = settings.trial() != null && !delete[i] && subscribing.nextDouble() < settings.subscribeShare();
        }
        pool = Executors.newScheduledThreadPool(8, r -> {
            Thread t = new Thread(r, "chaos-client");
            t.setDaemon(true);
            return t;
        });
        deleter = new Thread(this::deleteWhenActive, "chaos-deleter");
        deleter.setDaemon(true);
    }

    /** Schedules every site request, evenly over the traffic window, and starts deleting the chosen sites. */
    void start(Instant deletesUntil) {
        this.deleteUntil = deletesUntil;
        long spacing = settings.traffic().toNanos() / settings.sites();
        for (int i = 0; i < settings.sites(); i++) {
            int n = i;
            pool.schedule(() -> {
                try {
                    requestOne(n);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException e) {
                    say.accept("client: site " + n + ": " + e);
                }
                answered.incrementAndGet();
            }, spacing * i, TimeUnit.NANOSECONDS);
        }
        pool.shutdown();
        deleter.start();
    }

    /** Waits until every site request was answered, or {@code stopBy} (then abandons the rest). */
    void awaitRequests(Instant stopBy) throws InterruptedException {
        while (!pool.awaitTermination(5, TimeUnit.SECONDS)) {
            say.accept(String.format("client: %d of %d site requests answered, %d accepted", answered.get(),
                    settings.sites(), acceptedSites.size()));
            if (Instant.now().isAfter(stopBy)) {
                say.accept("client: out of time; abandoning the requests still unanswered");
                pool.shutdownNow();
                break;
            }
        }
        say.accept(String.format("client: %d site requests accepted (%d refused, %d accepted by an earlier attempt); "
                + "%d sent again with the same key, %d answered with an identical replay", acceptedSites.size(),
                refused.get(), acceptedEarlier.get(), resent.get(), identical.get()));
    }

    /** Waits (at most until {@code until}) for every chosen site to be deleted or to have ended otherwise. */
    boolean awaitDeletes(Instant until) throws InterruptedException {
        deleter.join(Math.max(1, Duration.between(Instant.now(), until).toMillis()));
        return !deleter.isAlive();
    }

    boolean deletesDone() {
        return !deleter.isAlive();
    }

    void stop() {
        pool.shutdownNow();
        deleter.interrupt();
    }

    private void requestOne(int n) throws InterruptedException {
        String tag = Long.toUnsignedString(settings.seed(), 36);
        Answer lead = client.send("POST", "/v1/leads", Map.of("name", "Lead " + n, "email",
                "lead" + n + "@example.com"), "chaos-" + tag + "-lead-" + n);
        if (lead.status() != 201) {
            refused.incrementAndGet();
            return;
        }
        String leadId = lead.json().path("id").asText();
        String key = "chaos-" + tag + "-site-" + n;
        Map<String, Object> body = Map.of("lead_id", leadId, "subdomain", "s" + n + "-" + tag);
        Answer site = client.send("POST", "/v1/sites", body, key);
        String siteId;
        if (site.status() == 202) {
            siteId = site.json().path("site_id").asText();
        } else if (site.status() == 409 && site.problem().endsWith("subdomain-taken") && site.json().has("site_id")) {
            // an earlier attempt of this very request made the site, and its answer was lost with a killed server
            siteId = site.json().path("site_id").asText();
            acceptedEarlier.incrementAndGet();
        } else {
            refused.incrementAndGet();
            return;
        }
        acceptedSites.put(siteId, Instant.now());
        if (resend[n]) {
            resent.incrementAndGet();
            Answer again = client.send("POST", "/v1/sites", body, key);
            if (again.status() == site.status() && again.body().equals(site.body()) && again.replayed()) {
                identical.incrementAndGet();
            }
        }
        if (deleteAtOnce[n]) {
            deleteNow(siteId);
        } else if (delete[n]) {
            toDelete.add(siteId);
        } else if (subscribe[n]) {
            toSubscribe.add(siteId);
        }
    }

    /** Deletes each chosen site once it is active; drops those that ended otherwise (failed, ...). */
    private void deleteWhenActive() {
        try {
            while (Instant.now().isBefore(deleteUntil) && !(pool.isTerminated() && toDelete.isEmpty()
                    && toSubscribe.isEmpty())) {
                if (!toSubscribe.isEmpty()) {
                    subscribeActive(siteStates());
                }
                if (!toDelete.isEmpty()) {
                    Map<String, String> states = siteStates();
                    for (String id : toDelete) {
                        String state = states.get(id);
                        if ("active".equals(state)) {
                            deleteNow(id);
                            toDelete.remove(id);
                        } else if (state != null && !state.equals("provisioning")) {
                            notDeletable.incrementAndGet();
                            toDelete.remove(id);
                        }
                    }
                }
                Thread.sleep(2000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!toDelete.isEmpty()) {
            say.accept("client: " + toDelete.size() + " site(s) chosen for deletion never became active; not deleted");
        }
    }

    /** Subscribes each chosen site once it is active; drops those that ended otherwise (failed, expired first, ...). */
    private void subscribeActive(Map<String, String> states) throws InterruptedException {
        for (String id : toSubscribe) {
            String state = states.get(id);
            if ("active".equals(state)) {
                Answer a = client.send("POST", "/v1/sites/" + id + "/subscription", null, null);
                if (a.status() == 200) {
                    subscribed.incrementAndGet();
                } else {
                    subscribeRefused.incrementAndGet(); // 409: the trial expired first, one outcome either way
                }
                toSubscribe.remove(id);
            } else if (state != null && !state.equals("provisioning")) {
                toSubscribe.remove(id);
            }
        }
    }

    private void deleteNow(String siteId) throws InterruptedException {
        Answer a = client.send("DELETE", "/v1/sites/" + siteId, null, null);
        if (a.status() == 202) {
            acceptedDeletes.putIfAbsent(siteId, Instant.now());
        } else {
            deletesRefused.incrementAndGet();
        }
    }

    /** Every site's state, as the API lists it. */
    private Map<String, String> siteStates() throws InterruptedException {
        Map<String, String> states = new HashMap<>();
        String cursor = null;
        do {
            Answer page = client.send("GET", "/v1/sites?limit=100" + (cursor == null ? "" : "&cursor=" + cursor),
                    null, null);
            if (page.status() != 200) {
                return states;
            }
            page.json().path("items").forEach(item -> states.put(item.path("site_id").asText(), item.path("state").asText()));
            cursor = page.json().path("next_cursor").isTextual() ? page.json().path("next_cursor").asText() : null;
        } while (cursor != null);
        return states;
    }

    /** Site ids the service accepted (202, or an earlier attempt's site), with when the client learnt it. */
    Map<String, Instant> acceptedSites() {
        return Map.copyOf(acceptedSites);
    }

    Map<String, Instant> acceptedDeletes() {
        return Map.copyOf(acceptedDeletes);
    }

    Map<String, Long> tally() {
        Map<String, Long> t = new LinkedHashMap<>();
        t.put("http_requests", client.requests.get());
        t.put("retried_same_key", client.retries.get());
        t.put("gave_up", client.gaveUp.get());
        t.put("sites_accepted", (long) acceptedSites.size());
        t.put("accepted_by_earlier_attempt", acceptedEarlier.get());
        t.put("refused", refused.get());
        t.put("resent_same_key", resent.get());
        t.put("identical_replays", identical.get());
        t.put("deletes_accepted", (long) acceptedDeletes.size());
        t.put("deletes_refused", deletesRefused.get());
        t.put("chosen_but_not_active", notDeletable.get());
        if (settings.trial() != null) {
            t.put("subscribed", subscribed.get());
            t.put("subscribe_refused", subscribeRefused.get());
        }
        return t;
    }
}
