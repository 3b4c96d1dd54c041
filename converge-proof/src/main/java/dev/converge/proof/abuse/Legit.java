package dev.converge.proof.abuse;

import java.net.URI;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The client the attacks must not hurt: a tenant reading its sites at a steady rate and creating a
 * lead every tenth request, each on a new connection (as {@code curl} would: a kept-alive
 * connection opened before an attack would hide what the attack does to new ones), with a 5 s
 * timeout. A request counts as served when it is answered 2xx within the timeout; its latency is
 * recorded either way.
 */
final class Legit {
    private final URI server;
    private final String token;
    private final int perSecond;

    Legit(URI server, String token, int perSecond) {
        this.server = server;
        this.token = token;
        this.perSecond = perSecond;
    }

    /** What the legitimate client saw over one phase. */
    record Seen(int sent, int served, long p50Micros, long p99Micros) {
        double successRate() {
            return sent == 0 ? 1 : (double) served / sent;
        }
    }

    /** Sends at the steady rate for {@code length}, then waits for the answers. */
    Seen during(Duration length) throws InterruptedException {
        List<Long> micros = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger served = new AtomicInteger();
        AtomicInteger sent = new AtomicInteger();
        ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor();
        ExecutorService senders = Executors.newFixedThreadPool(Math.max(8, perSecond * 6));
        try {
            clock.scheduleAtFixedRate(() -> {
                int n = sent.incrementAndGet();
                senders.execute(() -> {
                    long t0 = System.nanoTime();
                    int status;
                    try {
                        status = n % 10 == 0
                                ? RawHttp.status(null, server, "POST", "/v1/leads", "Bearer " + token,
                                        "{\"name\":\"Legit " + n + "\",\"email\":\"legit" + n + "@example.com\"}")
                                : RawHttp.status(null, server, "GET", "/v1/sites?limit=5", "Bearer " + token);
                    } catch (IOException e) {
                        status = -1;
                    }
                    long took = (System.nanoTime() - t0) / 1_000;
                    micros.add(took);
                    if (status / 100 == 2 && took <= 5_000_000) {
                        served.incrementAndGet();
                    }
                });
            }, 0, 1_000_000 / perSecond, TimeUnit.MICROSECONDS);
            Thread.sleep(length.toMillis());
        } finally {
            clock.shutdownNow();
            clock.awaitTermination(5, TimeUnit.SECONDS);
            senders.shutdown();
            senders.awaitTermination(30, TimeUnit.SECONDS);
        }
        List<Long> sorted = new ArrayList<>(micros);
        Collections.sort(sorted);
        return new Seen(sent.get(), served.get(), percentile(sorted, 0.50), percentile(sorted, 0.99));
    }

    /**
     * Over {@code length}, one site requested every {@code every} (a lead, then the site), each followed
     * until it is active: what is measured is the time from the request to the site being live, and
     * a site counts as served when it is active within {@link #SITE_WAIT}.
     */
    Seen sitesDuring(Duration length, Duration every) throws InterruptedException {
        List<Long> micros = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger served = new AtomicInteger();
        AtomicInteger sent = new AtomicInteger();
        String run = Long.toString(System.nanoTime() & 0xffffff, 36);
        ExecutorService watchers = Executors.newCachedThreadPool();
        long end = System.nanoTime() + length.toNanos();
        try {
            while (System.nanoTime() < end) {
                int n = sent.incrementAndGet();
                watchers.execute(() -> {
                    long t0 = System.nanoTime();
                    try {
                        if (siteActive(run + "-" + n, t0 + SITE_WAIT.toNanos())) {
                            served.incrementAndGet();
                        }
                    } catch (IOException e) {
                        // not served
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    micros.add((System.nanoTime() - t0) / 1_000);
                });
                Thread.sleep(every.toMillis());
            }
        } finally {
            watchers.shutdown();
            watchers.awaitTermination(SITE_WAIT.toSeconds() + 30, TimeUnit.SECONDS);
        }
        List<Long> sorted = new ArrayList<>(micros);
        Collections.sort(sorted);
        return new Seen(sent.get(), served.get(), percentile(sorted, 0.50), percentile(sorted, 0.99));
    }

    /** How long a legitimate site may take to go live and still count as served. */
    static final Duration SITE_WAIT = Duration.ofSeconds(30);

    /** One request's whole answer on a new connection ("" when it was not answered 2xx). */
    private String body(String method, String path, String json, String key) throws IOException {
        RawHttp.Answer a = RawHttp.exchange(null, server, method, path, "Bearer " + token, json, key, true);
        return a.status() / 100 == 2 ? a.rest() : "";
    }

    private boolean siteActive(String name, long deadlineNanos) throws IOException, InterruptedException {
        String lead = body("POST", "/v1/leads", "{\"name\":\"Legit " + name + "\",\"email\":\"legit-" + name
                + "@example.com\"}", null);
        java.util.regex.Matcher l = Attacks.LEAD_ID.matcher(lead);
        if (!l.find()) {
            return false;
        }
        String receipt = body("POST", "/v1/sites", "{\"lead_id\":\"" + l.group() + "\",\"subdomain\":\"legit-" + name
                + "\"}", "legit-" + name);
        java.util.regex.Matcher s = Attacks.SITE_ID.matcher(receipt);
        if (!s.find()) {
            return false;
        }
        while (System.nanoTime() < deadlineNanos) {
            String site = body("GET", "/v1/sites/" + s.group(), null, null);
            if (site.contains("\"state\":\"active\"")) {
                return true;
            }
            if (site.contains("\"state\":\"failed\"")) {
                return false;
            }
            Thread.sleep(100);
        }
        return false;
    }

    static long percentile(List<Long> sorted, double p) {
        if (sorted.isEmpty()) {
            return 0;
        }
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p * sorted.size()) - 1));
    }
}
