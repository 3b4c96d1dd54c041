package dev.converge.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.flow.Harness;
import dev.converge.testkit.leaf.CountingLeaf;
import dev.converge.token.TokenState;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The reapers page past what they leave alone: rows nobody can resolve (no lookup at the leaf)
 * must not hide, forever, the newer stale rows behind them.
 */
class ReaperPagingTest {
    static final int UNRESOLVABLE = 200;
    /** An owner that ended long ago: no job has this id. */
    static final long GONE_JOB = -5;

    final CountingLeaf unsafe = CountingLeaf.unsafe("paging.license");
    final CountingLeaf repos = CountingLeaf.uniqueByKey("paging.repo");

    static OffsetDateTime anHourAgo() {
        return OffsetDateTime.now(ZoneOffset.UTC).minusHours(1);
    }

    void staleEntry(Harness h, String kind, String key) {
        h.store().withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO cv_ledger (kind, natural_key, subject, state, "
                    + "safety, owner_job_id, owner_epoch, created_at, updated_at) VALUES (?, ?, 's', 'claimed', "
                    + "'unsafe', ?, 1, ?, ?)")) {
                ps.setString(1, kind);
                ps.setString(2, key);
                ps.setLong(3, GONE_JOB);
                ps.setObject(4, anHourAgo());
                ps.setObject(5, anHourAgo());
                return ps.executeUpdate();
            }
        });
    }

    void usedToken(Harness h, String pool, String token) {
        h.store().withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO cv_token (pool, token, state, owner, owner_job_id, "
                    + "owner_epoch, checked_out_at, used_at, created_at) VALUES (?, ?, 'checked_out', 'gone', ?, 1, ?, ?, ?)")) {
                ps.setString(1, pool);
                ps.setString(2, token);
                ps.setLong(3, GONE_JOB);
                ps.setObject(4, anHourAgo());
                ps.setObject(5, anHourAgo());
                ps.setObject(6, anHourAgo());
                return ps.executeUpdate();
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void theLedgerReaperReachesAStaleEntryBehindTwoHundredItCannotResolve(String kind) {
        try (Harness h = new Harness(kind)) {
            Converge engine = h.engine(b -> b.queue("default", 4).resource(unsafe).resource(repos));
            for (int i = 0; i < UNRESOLVABLE; i++) {
                staleEntry(h, unsafe.kind(), "old-" + i);
            }
            staleEntry(h, repos.kind(), "new-1");
            assertThat(engine.ledger().reap(Duration.ZERO)).as("stale entries reached in one pass")
                    .isEqualTo(UNRESOLVABLE + 1);
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    engine.ledger().entry(repos.kind(), "new-1").orElseThrow().state() == LedgerState.RELEASED);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void theTokenReaperReachesAStaleTokenBehindTwoHundredItCannotSettle(String kind) {
        try (Harness h = new Harness(kind)) {
            Converge engine = h.engine(b -> b.queue("default", 4));
            engine.tokens().resolveWith("looked", token -> Optional.of(false));
            for (int i = 0; i < UNRESOLVABLE; i++) {
                usedToken(h, "unlooked", "old-" + i);
            }
            usedToken(h, "looked", "new-1");
            assertThat(engine.tokens().reap(Duration.ZERO)).as("settlings scheduled").isEqualTo(1);
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    engine.tokens().all("looked").get(0).state() == TokenState.AVAILABLE);
        }
    }
}
