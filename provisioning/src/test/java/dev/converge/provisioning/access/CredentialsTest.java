package dev.converge.provisioning.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.tenant.Tenants;
import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Tokens by scope; what cannot be a token costs no query, and recent answers are reused briefly. */
class CredentialsTest {
    private static Store store(String name) {
        Store s = Store.open(StoreConfig.newBuilder().url("jdbc:h2:mem:" + name + System.nanoTime() + ";DB_CLOSE_DELAY=-1")
                .build());
        Provisioning.migrate(s);
        return s;
    }

    @Test
    void aStringThatCannotBeOurTokenIsRefusedWithoutAQueryAndAnUnknownOneIsCached() {
        Store s = store("cred");
        Credentials credentials = new Credentials(s);
        String unknown = "cvt_" + "A".repeat(43);
        assertThat(credentials.authenticate(unknown)).isEmpty();
        s.close(); // from here on, any query would fail
        for (String garbage : new String[] {null, "", "Bearer x", "cvt_short", "cvx_" + "A".repeat(43), "x".repeat(5000)}) {
            assertThat(credentials.authenticate(garbage)).as(String.valueOf(garbage)).isEmpty();
        }
        assertThat(credentials.authenticate(unknown)).as("answered from the cache").isEmpty();
        assertThatThrownBy(() -> credentials.authenticate("cvt_" + "B".repeat(43))).as("a new one is looked up")
                .isInstanceOf(RuntimeException.class);
    }

    @Test
    void eachTokenHasOneScopeAndAnOperatorTokenNoTenant() {
        try (Store s = store("scopes")) {
            Tenants tenants = new Tenants(s);
            Tenants.Created t = tenants.create("acme");
            Credentials c = tenants.credentials();
            assertThat(c.authenticate(t.token())).hasValueSatisfying(cr -> {
                assertThat(cr.scope()).isEqualTo(Scope.SERVICE);
                assertThat(cr.tenant().id()).isEqualTo(t.tenant().id());
            });
            var agent = c.issue(t.tenant().id(), Scope.AGENT, Duration.ofDays(1), "bot");
            assertThat(c.authenticate(agent.token())).hasValueSatisfying(cr -> {
                assertThat(cr.scope()).isEqualTo(Scope.AGENT);
                assertThat(cr.expiresAt()).isNotNull();
            });
            var operator = c.issueOperator(null, "ops");
            assertThat(c.authenticate(operator.token())).hasValueSatisfying(cr -> {
                assertThat(cr.scope()).isEqualTo(Scope.OPERATOR);
                assertThat(cr.tenant()).isNull();
            });
            assertThatThrownBy(() -> c.issue(t.tenant().id(), Scope.OPERATOR, null, null))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(c.list(t.tenant().id())).extracting(Credentials.TokenInfo::scope)
                    .containsExactly(Scope.SERVICE, Scope.AGENT);
            assertThat(c.list(null)).extracting(Credentials.TokenInfo::scope).containsExactly(Scope.OPERATOR);
            assertThat(agent.toString()).doesNotContain(agent.token());
        }
    }
}
