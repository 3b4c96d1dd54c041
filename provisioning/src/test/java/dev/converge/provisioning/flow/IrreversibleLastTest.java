package dev.converge.provisioning.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.crash.CrashPlan;
import dev.converge.crash.CrashPoint;
import dev.converge.provisioning.LocalLeaves;
import dev.converge.provisioning.NodeOptions;
import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.config.ProvisioningConfig;
import dev.converge.provisioning.lead.Lead;
import dev.converge.provisioning.site.Site;
import dev.converge.provisioning.site.SiteRequest;
import dev.converge.provisioning.site.SiteState;
import dev.converge.provisioning.site.Sites;
import dev.converge.provisioning.tenant.Tenants;
import dev.converge.queue.RetryPolicy;
import dev.converge.store.Store;
import dev.converge.testkit.TestStores;
import dev.converge.time.EngineClock;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What cannot be undone goes out last: a site is deleted, or its flow's deadline passes, right
 * after each step of provisioning (the step's work done, its completion not yet recorded), and
 * no welcome email is ever left for a site that is then torn down or failed. One worker, so
 * nothing else runs while the interruption is made.
 */
class IrreversibleLastTest {
    enum Interruption { DELETE, DEADLINE }

    /** The steps of provisioning, in order, up to (not including) the send itself. */
    static final List<String> POINTS = List.of("site.create-resource", "site.deploy", "site.send-welcome",
            "site.confirm");

    private static LocalLeaves leaves;
    private static Store store;
    private static Provisioning service;
    private static final AtomicReference<Trap> trap = new AtomicReference<>();

    /** Interrupt this site once, after the first step of this kind. */
    record Trap(long siteId, String kind, Interruption how, AtomicBoolean sprung) {
    }

    @BeforeAll
    static void start() {
        leaves = LocalLeaves.start(7);
        store = TestStores.h2(true, EngineClock.database());
        ProvisioningConfig config = leaves.config(Duration.ofDays(14), Duration.ofMinutes(2), null, Duration.ofSeconds(2));
        SiteJobs fast = new SiteJobs(RetryPolicy.attempts(6).backoff(Duration.ofMillis(50)).cappedAt(Duration.ofMillis(400)),
                Duration.ofSeconds(20));
        CrashPlan plan = (point, lease) -> {
            if (point != CrashPoint.BEFORE_COMPLETE) {
                return;
            }
            synchronized (IrreversibleLastTest.class) { // armed with the site's id once it is requested
                spring(lease.jobId());
            }
        };
        NodeOptions node = NodeOptions.defaults().withConcurrency(1).withJobs(fast)
                .withEngine(b -> b.crashPlan(plan).leases(l -> l.duration(Duration.ofSeconds(5))).queues(q -> q.poll(Duration.ofMillis(50)))
                        .maintenance(m -> m.watchdog(Duration.ofMillis(500))).ledger(g -> g.reaper(Duration.ofMillis(500), Duration.ofSeconds(30))));
        service = Provisioning.start(store, config, node);
    }

    /**
     * Interrupts the trapped site after the job, if it is the trapped kind of step: a step of the
     * provisioning flow, or its confirmation.
     */
    private static void spring(long jobId) {
            Trap t = trap.get();
            if (t == null || t.sprung().get()) {
                return;
            }
            var job = service.engine().job(jobId).orElseThrow();
            boolean ofFlow = job.flowId() != null || job.kind().equals("site.confirm");
            if (!ofFlow || !job.kind().equals(t.kind()) || !job.payload().contains("\"siteId\":" + t.siteId())
                    || !t.sprung().compareAndSet(false, true)) {
                return;
            }
            Site site = service.store().withConnection(c -> new dev.converge.provisioning.site.SiteStore(
                    store).get(c, t.siteId())).orElseThrow();
            if (t.how() == Interruption.DELETE) {
                service.sites().delete(site.tenantId(), site.id());
            } else {
                store.withConnection(c -> {
                    try (var ps = c.prepareStatement("UPDATE cv_flow SET deadline = created_at WHERE id = ?")) {
                        ps.setLong(1, site.provisionFlowId());
                        ps.executeUpdate();
                    }
                    return null;
                });
                service.engine().flows().fail(site.provisionFlowId(), "deadline passed"); // as the watchdog does
            }
    }

    @AfterAll
    static void stop() {
        service.close();
        store.close();
        leaves.close();
    }

    static List<Object[]> points() {
        List<Object[]> out = new java.util.ArrayList<>();
        for (Interruption how : EnumSet.allOf(Interruption.class)) {
            for (String kind : POINTS) {
                out.add(new Object[] {how, kind});
            }
        }
        return out;
    }

    @ParameterizedTest(name = "{0} after {1}")
    @MethodSource("points")
    void noWelcomeEmailIsLeftForASiteThatIsTornDown(Interruption how, String kind) {
        Tenants.Created tenant = service.tenants().create("t-" + how.name().toLowerCase() + "-" + kind.replace('.', '-'));
        long tenantId = tenant.tenant().id();
        Lead lead = service.leads().create(tenantId, "Ada", "ada@example.com");
        String name = (how.name() + "-" + kind.substring(5)).toLowerCase();
        // the site is trapped before any of its steps can run: its id is known only once requested,
        // so the request happens under the trap's placeholder and the trap is armed with the id
        AtomicBoolean sprung = new AtomicBoolean();
        Site site;
        synchronized (IrreversibleLastTest.class) {
            trap.set(new Trap(-1, kind, how, sprung));
            var outcome = service.sites().request(tenantId, new SiteRequest(lead.id(), name, null, null));
            site = ((Sites.Created) outcome).site();
            trap.set(new Trap(site.id(), kind, how, sprung));
        }
        await().atMost(Duration.ofSeconds(40)).until(() -> settled(tenantId, site.id()) && quiet());
        SiteState end = service.sites().get(tenantId, site.id()).orElseThrow().state();
        long emails = leaves.smtp().countForSite(Long.toString(site.id()));
        if (!sprung.get()) {
            assertThat(kind).as("only the send has no point inside the flow: it runs after confirmation")
                    .isEqualTo("site.send-welcome");
            assertThat(end).isEqualTo(SiteState.ACTIVE);
            assertThat(emails).isEqualTo(1);
            return;
        }
        if (end != SiteState.ACTIVE) {
            assertThat(emails).as("welcome emails for a site that ended %s", end).isZero();
        } else {
            assertThat(how).as("only a deadline after confirmation leaves the site active").isEqualTo(Interruption.DEADLINE);
            assertThat(emails).isEqualTo(1);
        }
        if (how == Interruption.DELETE) {
            assertThat(end).isEqualTo(SiteState.DELETED);
        }
    }

    private static boolean settled(long tenantId, long siteId) {
        SiteState s = service.sites().get(tenantId, siteId).orElseThrow().state();
        return s == SiteState.ACTIVE || s == SiteState.FAILED || s == SiteState.DELETED || s == SiteState.NEEDS_ATTENTION;
    }

    private static boolean quiet() {
        return store.withConnection(c -> {
            try (var ps = c.prepareStatement("SELECT COUNT(*) FROM cv_job WHERE state IN ('available', 'running')");
                    var rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1) == 0;
            }
        });
    }
}
