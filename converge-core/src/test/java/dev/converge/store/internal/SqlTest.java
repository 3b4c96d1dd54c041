package dev.converge.store.internal;

import dev.converge.store.Sql;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SqlTest {

    @Test
    void namedParametersBecomePositionalInOrderOfAppearance() {
        Sql sql = Templates.sql(new H2Dialect(), "UPDATE t SET a = :a, b = :b WHERE id = :id AND a <> :a");
        assertThat(sql.text()).isEqualTo("UPDATE t SET a = ?, b = ? WHERE id = ? AND a <> ?");
    }

    @Test
    void quotedTextAndCastsAreLeftAlone() {
        Sql sql = Templates.sql(new PostgresDialect(), "SELECT ':not_a_param', x::text FROM t WHERE y = :y");
        assertThat(sql.text()).isEqualTo("SELECT ':not_a_param', x::text FROM t WHERE y = ?");
    }

    @Test
    void timeTokensExpandToTheBoundInstantOrTheDatabaseClock() {
        Sql pg = Templates.sql(new PostgresDialect(), "SELECT {now}, {now+:delay_ms}");
        assertThat(pg.text()).isEqualTo("SELECT COALESCE(CAST(? AS TIMESTAMPTZ), statement_timestamp()), "
                + "(COALESCE(CAST(? AS TIMESTAMPTZ), statement_timestamp()) + CAST(? AS DOUBLE PRECISION) * INTERVAL '1 millisecond')");
        Sql h2 = Templates.sql(new H2Dialect(), "SELECT {now+:delay_ms}");
        assertThat(h2.text()).isEqualTo("SELECT DATEADD(MILLISECOND, CAST(? AS BIGINT), "
                + "COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), CURRENT_TIMESTAMP))");
    }

    @Test
    void eachDatabaseTakesLockedRowsItsOwnWay() {
        String candidates = "SELECT id FROM t WHERE s = 'a' ORDER BY s, id LIMIT 5";
        assertThat(new PostgresDialect().takeSkippingLocked(candidates))
                .isEqualTo("id = ANY(ARRAY(" + candidates + " FOR UPDATE SKIP LOCKED))");
        assertThat(new PostgresDialect().locksEveryRowItReads()).isFalse();
        assertThat(new H2Dialect().locksEveryRowItReads()).as("H2 leases in two steps").isTrue();
    }
}
