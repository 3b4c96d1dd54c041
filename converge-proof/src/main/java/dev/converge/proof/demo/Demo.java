package dev.converge.proof.demo;

import com.fasterxml.jackson.databind.JsonNode;
import dev.converge.proof.check.CheckReport;
import dev.converge.proof.check.ConvergenceCheck;
import dev.converge.proof.check.LocalTruth;
import dev.converge.proof.embedded.EmbeddedLeaves;
import dev.converge.provisioning.NodeOptions;
import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.config.ProvisioningConfig;
import dev.converge.provisioning.api.ApiOptions;
import dev.converge.provisioning.api.ApiServer;
import dev.converge.provisioning.flow.SiteJobs;
import dev.converge.provisioning.leaf.GitHostDriver;
import dev.converge.provisioning.leaf.PostgresDatabaseLeaf;
import dev.converge.provisioning.leaf.PostgresLeafConfig;
import dev.converge.provisioning.site.SiteState;
import dev.converge.queue.RetryPolicy;
import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The main job: the whole service embedded (H2, simulated leaves, SMTP, the API, workers), sites
 * requested over real HTTP with leaf faults and crash points switched on, some torn down, then a
 * check of the leaves against what was asked.
 */
public final class Demo {
    private Demo() {
    }

    /** What to do with the report while the server is still up ({@code --keep}): print it, then wait. */
    @FunctionalInterface
    public interface WhileUp {
        void reportReady(DemoReport report) throws Exception;
    }

    public static DemoReport run(DemoSettings s, PrintStream out) throws Exception {
        return run(s, out, null, null);
    }

    /**
     * Runs the demo; with {@code keep} not null, {@code whileUp} gets the report while the server is
     * still up, and the demo then waits, the dashboard open, until {@code keep} is released.
     */
    public static DemoReport run(DemoSettings s, PrintStream out, KeepOpen keep, WhileUp whileUp) throws Exception {
        Progress progress = new Progress(out);
        out.printf("converge demo: %d sites, seed %d, leaf faults %.0f%%, crash points %.0f%%%n", s.sites(), s.seed(),
                s.faultRate() * 100, s.crashRate() * 100);
        Path dir = Files.createTempDirectory("converge-demo");
        RandomCrashes crashes = new RandomCrashes(s.seed(), s.crashRate());
        String dbPrefix = "cvdemo" + Long.toString(System.nanoTime() % 100000, 36) + "_";
        PostgresLeafConfig siteDb = s.siteDb() == null ? null : PostgresLeafConfig.of(s.siteDb(), "root", dbPrefix);
        try (EmbeddedLeaves leaves = EmbeddedLeaves.start(s.seed());
                ScriptedModel model = ScriptedModel.start().otherwise(DemoConversation.model());
                Store store = Store.open(StoreConfig.h2File(dir.resolve("converge").toString()).maxPoolSize(24).build())) {
            ProvisioningConfig config = leaves.config(s.trial() != null ? s.trial() : Duration.ofDays(14),
                    Duration.ofSeconds(40), siteDb, Duration.ofSeconds(1));
            SiteJobs jobs = new SiteJobs(RetryPolicy.attempts(12).backoff(Duration.ofMillis(100)).cappedAt(Duration.ofSeconds(2)),
                    Duration.ofSeconds(15));
            NodeOptions node = NodeOptions.defaults().withConcurrency(12).withJobs(jobs)
                    .withEngine(b -> b.crashPlan(crashes).leases(l -> l.duration(Duration.ofMillis(1500))).queues(q -> q.poll(Duration.ofMillis(50)))
                            .maintenance(m -> m.watchdog(Duration.ofSeconds(1))).ledger(g -> g.reaper(Duration.ofSeconds(1), Duration.ofSeconds(5))));
            var chat = dev.converge.provisioning.assistant.ModelSettings.of(model.baseUrl(), "scripted-demo")
                    .withKey(null).withTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(30));
            try (Provisioning service = Provisioning.start(store, config, node, chat);
                    ApiServer api = ApiServer.start(service, ApiOptions.defaults(), dev.converge.provisioning.extensions.StandardExtensions.all())) {
                DemoFaults.install(leaves.leafSim().faults(), s.faultRate(), 2500);
                var tenant = service.tenants().create("demo tenant");
                progress.say("running: H2 in %s, leaves on :%d, SMTP on :%d, API on :%d", dir, leaves.leafSim().port(),
                        leaves.smtp().port(), api.port());
                String dashboard = dashboard(out, service, api.port());
                SiteClient client = new SiteClient("http://127.0.0.1:" + api.port(), tenant.token());
                GitHostDriver gitHost = new GitHostDriver(config.gitHost());
                RivalRepository rival = new RivalRepository(gitHost);
                DemoTraffic traffic = new DemoTraffic(client, s, progress, rival::take);
                Set<String> accepted = new java.util.HashSet<>(traffic.requestSites());
                // one conversation with the assistant, its model scripted in-process; its site is checked like the rest
                String lead = service.leads().create(tenant.tenant().id(), "Grace", "grace@example.com").publicId();
                var conversation = new DemoConversation("http://127.0.0.1:" + api.port(), tenant.token())
                        .run(lead, "assistant-" + Long.toString(s.seed(), 36).replace("-", "m"), progress);
                if (conversation.siteId() != null) {
                    accepted.add(conversation.siteId());
                }
                waitUntil(service, progress, leaves, crashes, s.timeout().dividedBy(2), SiteState.PROVISIONING);
                DemoTrial trial = null;
                if (s.trial() != null) {
                    String approver = service.tenants().credentials().issue(tenant.tenant().id(),
                            dev.converge.provisioning.access.Scope.APPROVER, Duration.ofDays(1), "demo approver").token();
                    trial = new DemoTrial(client, new SiteClient("http://127.0.0.1:" + api.port(), approver), progress,
                            s.seed());
                    trial.subscribeSome(service, tenant.tenant().id());
                    trial.retryByHand(service, tenant.tenant().id(), traffic.subdomain(0), rival::release, s.timeout());
                }
                traffic.deleteSome(service, tenant.tenant().id());
                waitUntil(service, progress, leaves, crashes, s.timeout(), SiteState.PROVISIONING, SiteState.DELETING);
                if (trial != null) {
                    DemoTrial.awaitTrialsEnded(service, progress, s.trial().plus(s.timeout()));
                    waitUntil(service, progress, leaves, crashes, s.timeout(), SiteState.PROVISIONING, SiteState.DELETING);
                }
                leaves.leafSim().faults().clear();
                PostgresDatabaseLeaf dbLeaf = siteDb == null ? null : new PostgresDatabaseLeaf(siteDb);
                CheckReport check = new ConvergenceCheck(store, service.resources(), new LocalTruth(leaves, dbLeaf))
                        .run(accepted);
                Map<String, Long> tally = traffic.tally();
                if (trial != null) {
                    tally.put("subscribed", (long) trial.subscribed());
                    tally.put("retried_by_hand", trial.retried() > 0 ? 1L : 0L);
                }
                DemoReport report = new DemoReport(s.seed(), s.sites(), (long) (progress.seconds() * 1000),
                        tally, DemoFaults.hitsByType(leaves.leafSim().faults().hits()),
                        crashes.crashesPerPoint(), check, conversation);
                if (dbLeaf != null) {
                    dbLeaf.list().forEach(r -> dbLeaf.delete(r.leafId())); // leave the server as we found it
                }
                if (keep != null) {
                    if (whileUp != null) {
                        whileUp.reportReady(report);
                    }
                    out.println("  --keep: the dashboard stays up at " + dashboard + " (operator token above); Ctrl-C stops it.");
                    out.flush();
                    keep.await();
                    out.println("  stopping the demo's server");
                }
                return report;
            }
        } finally {
            deleteTree(dir);
        }
    }

    /**
     * Prints the dashboard's URL and an operator token for it, valid for a day, so a person can
     * watch the run and look at what happened. The token is this run's only: its store is a temporary
     * file deleted at the end.
     */
    private static String dashboard(PrintStream out, Provisioning service, int port) {
        String url = "http://127.0.0.1:" + port + "/ui";
        var issued = service.tenants().credentials().issueOperator(Duration.ofDays(1), "demo dashboard");
        out.println("  dashboard       " + url);
        out.println("  operator token  " + issued.token() + "   (paste it into the dashboard's login form)");
        out.flush();
        return url;
    }

    private static void waitUntil(Provisioning service, Progress progress, EmbeddedLeaves leaves, RandomCrashes crashes,
            Duration timeout, SiteState... notIn) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        long lastSaid = 0;
        while (true) {
            Map<String, Integer> byState = DemoTraffic.sitesByState(service);
            int pending = 0;
            for (SiteState st : notIn) {
                pending += byState.getOrDefault(st.sql(), 0);
            }
            // the sites have settled; what their flows queued after (the welcome email, a token's
            // resolution, a redelivery after a crash) must have run too before anything is checked
            boolean done = pending == 0 && jobsDueSoon(service) == 0;
            if (done || System.nanoTime() - lastSaid > 1_000_000_000L) {
                long faults = leaves.leafSim().faults().hits().stream().mapToLong(h -> h.hits()).sum();
                progress.say("sites %s | leaf faults %d | crashes %d", compact(byState), faults, crashes.total());
                lastSaid = System.nanoTime();
            }
            if (done || System.nanoTime() > end) {
                return;
            }
            Thread.sleep(200);
        }
    }

    /** Jobs waiting or running that are due within half a minute (later ones are not the run's business). */
    private static int jobsDueSoon(Provisioning service) {
        return service.store().withConnection(c -> {
            try (var st = c.prepareStatement("SELECT COUNT(*) FROM cv_job WHERE state IN ('available', 'running') "
                    + "AND run_at < CURRENT_TIMESTAMP + INTERVAL '30' SECOND")) {
                try (var rs = st.executeQuery()) {
                    rs.next();
                    return rs.getInt(1);
                }
            }
        });
    }

    private static String compact(Map<String, Integer> byState) {
        StringBuilder s = new StringBuilder();
        byState.forEach((k, v) -> {
            if (v > 0) {
                s.append(s.length() == 0 ? "" : ", ").append(k).append(' ').append(v);
            }
        });
        return s.length() == 0 ? "none yet" : s.toString();
    }

    private static void deleteTree(Path dir) {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException e) {
            // a temp directory left behind is harmless
        }
    }

    static String siteIdOf(JsonNode receipt) {
        return receipt.path("site_id").asText();
    }
}
