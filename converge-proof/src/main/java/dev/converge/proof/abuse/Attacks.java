package dev.converge.proof.abuse;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** The attacks {@code converge abuse} runs. */
final class Attacks {
    private static final SecureRandom RANDOM = new SecureRandom();

    private Attacks() {
    }

    /** Counts answers by status code, for the report. */
    private static final class Answers {
        private final Map<Integer, AtomicInteger> byStatus = new ConcurrentHashMap<>();

        void add(int status) {
            byStatus.computeIfAbsent(status, s -> new AtomicInteger()).incrementAndGet();
        }

        @Override
        public String toString() {
            Map<Integer, Integer> sorted = new TreeMap<>();
            byStatus.forEach((s, n) -> sorted.put(s, n.get()));
            List<String> parts = new ArrayList<>();
            sorted.forEach((s, n) -> parts.add((s < 0 ? "closed" : s.toString()) + ": " + n));
            return String.join(", ", parts);
        }
    }

    /** Attempts spread over a few threads until stopped or {@code total} are made. */
    private abstract static class Flood implements Attack {
        private final int threads;
        private final long total;
        private final AtomicBoolean running = new AtomicBoolean();
        private final AtomicLong made = new AtomicLong();
        private final List<Thread> workers = new ArrayList<>();
        final Answers answers = new Answers();

        Flood(int threads, long total) {
            this.threads = threads;
            this.total = total;
        }

        abstract int once() throws IOException, InterruptedException;

        @Override
        public void start() {
            running.set(true);
            for (int i = 0; i < threads; i++) {
                Thread t = new Thread(() -> {
                    while (running.get() && made.incrementAndGet() <= total) {
                        try {
                            answers.add(once());
                        } catch (IOException e) {
                            answers.add(-1);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }, "abuse-" + name());
                t.setDaemon(true);
                workers.add(t);
                t.start();
            }
        }

        @Override
        public long stop() throws InterruptedException {
            running.set(false);
            for (Thread t : workers) {
                t.join(10_000);
            }
            return Math.min(made.get(), total);
        }

        @Override
        public String answers() {
            return answers.toString();
        }
    }

    /** Bearer tokens of the right shape that do not exist, and a few malformed ones, from one address. */
    static Attack randomTokens(URI server, String from, int count) {
        return new Flood(4, count) {
            @Override
            public String name() {
                return "random tokens";
            }

            @Override
            int once() throws IOException {
                byte[] raw = new byte[32];
                RANDOM.nextBytes(raw);
                String token = (RANDOM.nextInt(4) == 0 ? "cvo_" : "cvt_") + Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
                if (RANDOM.nextInt(8) == 0) {
                    token = token.substring(0, 20); // malformed
                }
                return RawHttp.status(from, server, "GET", "/v1/sites", "Bearer " + token);
            }
        };
    }

    /** Requests with made-up HTTP methods (one of them 4,000 characters long), from one address. */
    static Attack randomMethods(URI server, String from, int count) {
        AtomicBoolean longOne = new AtomicBoolean();
        return new Flood(4, count) {
            @Override
            public String name() {
                return "random methods";
            }

            @Override
            int once() throws IOException {
                int length = longOne.compareAndSet(false, true) ? 4_000 : 3 + RANDOM.nextInt(10);
                StringBuilder method = new StringBuilder();
                for (int i = 0; i < length; i++) {
                    method.append((char) ('A' + RANDOM.nextInt(26)));
                }
                return RawHttp.status(from, server, method.toString(), "/v1/sites", null);
            }
        };
    }

    /** Another tenant writing as fast as it can: creating leads on 8 connections. */
    static Attack noisyTenant(URI server, String token) {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
        AtomicInteger n = new AtomicInteger();
        return new Flood(8, Long.MAX_VALUE) {
            @Override
            public String name() {
                return "noisy tenant";
            }

            @Override
            int once() throws IOException, InterruptedException {
                int i = n.incrementAndGet();
                HttpRequest req = HttpRequest.newBuilder(server.resolve("/v1/leads")).timeout(Duration.ofSeconds(10))
                        .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"Noisy " + i + "\",\"email\":\"noisy" + i
                                + "@example.com\"}")).build();
                return http.send(req, HttpResponse.BodyHandlers.discarding()).statusCode();
            }
        };
    }

    /**
     * Another tenant requesting sites as fast as its limits let it, on 8 threads from {@code from}, a
     * new connection per request: a lead, then a site for it under a new key. What it asks of the workers is what the legitimate tenant's sites
     * must not wait behind.
     */
    static Attack noisySites(URI server, String from, String token) {
        String run = Long.toString(System.nanoTime() & 0xffffff, 36);
        AtomicInteger n = new AtomicInteger();
        return new Flood(8, Long.MAX_VALUE) {
            @Override
            public String name() {
                return "noisy sites";
            }

            @Override
            int once() throws IOException, InterruptedException {
                int i = n.incrementAndGet();
                RawHttp.Answer lead = RawHttp.exchange(from, server, "POST", "/v1/leads", "Bearer " + token,
                        "{\"name\":\"Noisy " + i + "\",\"email\":\"noisy" + i + "@example.com\"}", null, true);
                java.util.regex.Matcher id = LEAD_ID.matcher(lead.rest());
                if (lead.status() != 201 || !id.find()) {
                    return lead.status();
                }
                return RawHttp.exchange(from, server, "POST", "/v1/sites", "Bearer " + token, "{\"lead_id\":\""
                        + id.group() + "\",\"subdomain\":\"noisy-" + run + "-" + i + "\"}", "noisy-" + run + "-" + i,
                        false).status();
            }
        };
    }

    static final java.util.regex.Pattern LEAD_ID = java.util.regex.Pattern.compile("lead_[0-9a-f]{32}");
    static final java.util.regex.Pattern SITE_ID = java.util.regex.Pattern.compile("site_[0-9a-f]{32}");

    /**
     * Slow clients: {@code sockets} connections from one address, each sending a request line and
     * then one header line every 3 s, never finishing the request (so an idle timeout never fires);
     * a connection the server closes is opened again a second later, as a real attacker would.
     */
    static Attack slowClients(URI server, String from, int sockets) {
        return new SlowClients(server, from, sockets);
    }

    private static final class SlowClients implements Attack {
        private static final int THREADS = 8;
        private final URI server;
        private final String from;
        private final Socket[] slots;
        private final long[] lastWrite;
        private final long[] lastTry;
        private final AtomicBoolean running = new AtomicBoolean();
        private final AtomicLong connects = new AtomicLong();
        private final AtomicLong closedByServer = new AtomicLong();
        private final AtomicLong refused = new AtomicLong();
        private final AtomicInteger open = new AtomicInteger();
        private final AtomicInteger maxOpen = new AtomicInteger();
        private final List<Thread> workers = new ArrayList<>();

        SlowClients(URI server, String from, int sockets) {
            this.server = server;
            this.from = from;
            this.slots = new Socket[sockets];
            this.lastWrite = new long[sockets];
            this.lastTry = new long[sockets];
        }

        @Override
        public String name() {
            return "slow clients";
        }

        @Override
        public void start() {
            running.set(true);
            for (int w = 0; w < THREADS; w++) {
                int first = w;
                Thread t = new Thread(() -> work(first), "abuse-slow-" + w);
                t.setDaemon(true);
                workers.add(t);
                t.start();
            }
        }

        private void work(int first) {
            while (running.get()) {
                long now = System.nanoTime();
                for (int i = first; i < slots.length && running.get(); i += THREADS) {
                    if (slots[i] == null) {
                        if (now - lastTry[i] >= 1_000_000_000L) {
                            lastTry[i] = now;
                            open(i);
                        }
                    } else if (now - lastWrite[i] >= 3_000_000_000L) {
                        write(i, "X-Slow-" + i + ": " + now + "\r\n");
                    }
                }
                sleep(20);
            }
        }

        private void open(int i) {
            connects.incrementAndGet();
            try {
                Socket s = RawHttp.connect(from, server, 1_000);
                slots[i] = s;
                int o = open.incrementAndGet();
                maxOpen.accumulateAndGet(o, Math::max);
                write(i, "GET /v1/sites HTTP/1.1\r\nHost: " + server.getHost() + "\r\n");
            } catch (IOException e) {
                refused.incrementAndGet();
            }
        }

        private void write(int i, String text) {
            try {
                OutputStream out = slots[i].getOutputStream();
                out.write(text.getBytes(StandardCharsets.US_ASCII));
                out.flush();
                lastWrite[i] = System.nanoTime();
                if (slots[i].getInputStream().available() > 0 || peerClosed(slots[i])) {
                    throw new IOException("answered or closed by the server");
                }
            } catch (IOException e) {
                close(i);
                closedByServer.incrementAndGet();
            }
        }

        /** A read that returns at once: -1 when the server has closed its side. */
        private static boolean peerClosed(Socket s) throws IOException {
            int timeout = s.getSoTimeout();
            s.setSoTimeout(1);
            try {
                return s.getInputStream().read() == -1;
            } catch (java.net.SocketTimeoutException stillOpen) {
                return false;
            } finally {
                s.setSoTimeout(timeout);
            }
        }

        private void close(int i) {
            try {
                slots[i].close();
            } catch (IOException ignored) {
                // closing what the server already closed
            }
            slots[i] = null;
            open.decrementAndGet();
        }

        private static void sleep(long ms) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public long stop() throws InterruptedException {
            running.set(false);
            for (Thread t : workers) {
                t.join(10_000);
            }
            for (int i = 0; i < slots.length; i++) {
                if (slots[i] != null) {
                    close(i);
                }
            }
            return connects.get();
        }

        @Override
        public String answers() {
            return "at most " + maxOpen.get() + " of " + slots.length + " open at once (as the attacker saw them); " + closedByServer.get()
                    + " closed by the server, " + refused.get() + " connects failed";
        }
    }

    /** Nothing: the legitimate client alone, for reference. */
    static Attack none() {
        return new Attack() {
            @Override
            public String name() {
                return "none (reference)";
            }

            @Override
            public void start() {
            }

            @Override
            public long stop() {
                return 0;
            }

            @Override
            public String answers() {
                return "";
            }
        };
    }

}
