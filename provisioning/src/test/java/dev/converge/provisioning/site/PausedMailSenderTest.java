package dev.converge.provisioning.site;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.converge.Converge;
import dev.converge.flow.Harness;
import dev.converge.provisioning.mail.LocalSmtp;
import dev.converge.provisioning.mail.MailLookup;
import dev.converge.provisioning.mail.MailReceipt;
import dev.converge.provisioning.mail.SmtpMailer;
import dev.converge.queue.Job;
import dev.converge.queue.JobState;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import dev.converge.store.Store;
import dev.converge.token.TokenOperation;
import dev.converge.token.TokenState;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A node that stops right after its last lease check and before the end of DATA (a SIGSTOP, a long
 * pause of the JVM) loses its lease, and another node takes the welcome email over. Whatever the
 * paused node does when it wakes, the site gets one welcome email: the node that took over trusts
 * the mail server's "not received" only once the server must have dropped a DATA stalled that long
 * (its idle timeout), so a late end of DATA either lands before it looks, or never lands.
 *
 * <p>The pause is real for everything that matters: the handler's thread waits, and every
 * connection the paused node asks its pool for waits too (no heartbeat reaches the database).
 */
class PausedMailSenderTest {
    record Send(String subject) {
    }

    static final JobType<Send> SEND = JobType.of("paused-sender.send", Send.class)
            .withRetry(RetryPolicy.attempts(5).backoff(Duration.ofMillis(50)).cappedAt(Duration.ofMillis(200)));
    static final Duration SERVER_IDLE = Duration.ofSeconds(2);
    static final String POOL = "welcome-email";

    @ParameterizedTest(name = "paused node wakes {0} the server drops its connection")
    @ValueSource(strings = {"before", "after"})
    void aSenderPausedBeforeTheEndOfDataNeverCausesASecondWelcomeEmail(String wakes) throws Exception {
        try (LocalSmtp smtp = LocalSmtp.start(SERVER_IDLE); Harness h = new Harness("postgres");
                HikariDataSource pool = pool(h.store())) {
            SmtpMailer mailer = new SmtpMailer(smtp.config("welcome@sites.example").withServerTimeout(SERVER_IDLE));
            MailLookup lookup = token -> smtp.received().stream().anyMatch(m -> token.equals(m.sendToken()));
            FreezableDataSource paused = new FreezableDataSource(pool);
            CountDownLatch atEndOfData = new CountDownLatch(1);
            CountDownLatch wake = new CountDownLatch(1);
            CountDownLatch pausedHandlerDone = new CountDownLatch(1);

            AtomicBoolean pausedOnce = new AtomicBoolean();
            Converge nodeA = h.engine(Store.of(paused), b -> timings(b).handle(SEND, (p, ctx) -> {
                try {
                    ctx.tokens().useOnce(POOL, p.subject(), pausing(welcome(mailer, lookup, p.subject()), () -> {
                        if (pausedOnce.compareAndSet(false, true)) {
                            paused.freeze();
                            atEndOfData.countDown();
                            awaitStopped(wake);
                        }
                    }));
                } finally {
                    pausedHandlerDone.countDown();
                }
            }));
            try {
                run(h, smtp, mailer, lookup, paused, nodeA, atEndOfData, wake, pausedHandlerDone, wakes);
            } finally {
                paused.thaw(); // a failed check must not leave the node's pool frozen for the closing
                wake.countDown();
            }
        }
    }

    private void run(Harness h, LocalSmtp smtp, SmtpMailer mailer, MailLookup lookup, FreezableDataSource paused,
            Converge nodeA, CountDownLatch atEndOfData, CountDownLatch wake, CountDownLatch pausedHandlerDone,
            String wakes) throws Exception {
        nodeA.tokens().add(POOL, "send-1", "site-1");
        long job = nodeA.enqueue(Job.of(SEND, new Send("site-1"))).jobId();
        assertThat(atEndOfData.await(20, TimeUnit.SECONDS)).as("node A reached the end of DATA").isTrue();
        long epochA = token(h).ownerEpoch();

        Converge nodeB = h.engine(b -> timings(b).handle(SEND, (p, ctx) ->
                ctx.tokens().useOnce(POOL, p.subject(), welcome(mailer, lookup, p.subject()))));
        await().atMost(Duration.ofSeconds(20)).until(() -> token(h).ownerEpoch() > epochA);
        if (wakes.equals("after")) {
            Thread.sleep(SERVER_IDLE.toMillis() + 1500); // the server drops node A's stalled DATA meanwhile
        }
        paused.thaw();
        wake.countDown();

        assertThat(pausedHandlerDone.await(30, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(30)).until(() -> nodeB.job(job).orElseThrow().state().isTerminal());
        assertThat(nodeB.job(job).orElseThrow().state()).isEqualTo(JobState.SUCCEEDED);
        Thread.sleep(500); // a late message has time to show up
        assertThat(smtp.countForSite("site-1")).as("welcome emails received by the server").isEqualTo(1);
        assertThat(token(h).state()).isEqualTo(TokenState.SPENT);
    }

    private static Converge.Builder timings(Converge.Builder b) {
        return b.queue("default", 1).leases(l -> l.duration(Duration.ofMillis(1000)).heartbeat(Duration.ofMillis(250))
                .rescue(Duration.ofMillis(100)));
    }

    private static SiteMail welcome(SmtpMailer mailer, MailLookup lookup, String site) {
        return SiteMail.welcome(mailer, lookup, "ada@example.com", site, "ada-shop", "https://ada-shop.sites.example");
    }

    /** The site's token as the database holds it (read apart from both nodes: node A's pool may be frozen). */
    private record TokenRow(long ownerEpoch, TokenState state) {
    }

    private static TokenRow token(Harness h) {
        return h.store().withConnection(c -> {
            try (var ps = c.prepareStatement("SELECT owner_epoch, state FROM cv_token WHERE pool = ? AND subject = ?")) {
                ps.setString(1, POOL);
                ps.setString(2, "site-1");
                try (var rs = ps.executeQuery()) {
                    rs.next();
                    return new TokenRow(rs.getLong(1), TokenState.valueOf(rs.getString(2).toUpperCase(java.util.Locale.ROOT)));
                }
            }
        });
    }

    /** The operation, with {@code pause} run after the real last check passed: the window a paused sender leaves. */
    private static TokenOperation<MailReceipt> pausing(SiteMail op, Runnable pause) {
        return new TokenOperation<>() {
            @Override
            public String name() {
                return op.name();
            }

            @Override
            public MailReceipt use(String token) {
                return op.use(token);
            }

            @Override
            public MailReceipt use(String token, Runnable lastCheck) {
                return op.use(token, () -> {
                    lastCheck.run();
                    pause.run();
                });
            }

            @Override
            public Optional<Boolean> wasUsed(String token) {
                return op.wasUsed(token);
            }

            @Override
            public boolean canTellIfUsed() {
                return op.canTellIfUsed();
            }

            @Override
            public Duration abandonedUseWindow() {
                return op.abandonedUseWindow();
            }
        };
    }

    /** A stopped thread: nothing, not even an interrupt from its node, moves it before {@code wake}. */
    private static void awaitStopped(CountDownLatch wake) {
        boolean interrupted = false;
        while (true) {
            try {
                wake.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static HikariDataSource pool(Store store) {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(store.config().url());
        c.setUsername(store.config().username());
        c.setPassword(store.config().password());
        c.setMaximumPoolSize(8);
        return new HikariDataSource(c);
    }

    /** A pool whose connections, while frozen, are handed out only once it thaws: a stopped process's view. */
    static final class FreezableDataSource implements DataSource {
        private final DataSource delegate;
        private volatile CountDownLatch frozen;

        FreezableDataSource(DataSource delegate) {
            this.delegate = delegate;
        }

        void freeze() {
            frozen = new CountDownLatch(1);
        }

        void thaw() {
            CountDownLatch f = frozen;
            frozen = null;
            if (f != null) {
                f.countDown();
            }
        }

        private void waitWhileFrozen() {
            CountDownLatch f = frozen;
            if (f != null) {
                awaitLatch(f);
            }
        }

        @Override
        public Connection getConnection() throws SQLException {
            waitWhileFrozen();
            return delegate.getConnection();
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            waitWhileFrozen();
            return delegate.getConnection(username, password);
        }

        @Override
        public PrintWriter getLogWriter() throws SQLException {
            return delegate.getLogWriter();
        }

        @Override
        public void setLogWriter(PrintWriter out) throws SQLException {
            delegate.setLogWriter(out);
        }

        @Override
        public void setLoginTimeout(int seconds) throws SQLException {
            delegate.setLoginTimeout(seconds);
        }

        @Override
        public int getLoginTimeout() throws SQLException {
            return delegate.getLoginTimeout();
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            return delegate.getParentLogger();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            return delegate.unwrap(iface);
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) throws SQLException {
            return delegate.isWrapperFor(iface);
        }
    }
}
