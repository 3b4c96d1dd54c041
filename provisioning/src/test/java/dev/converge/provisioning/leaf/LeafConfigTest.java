package dev.converge.provisioning.leaf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Configs fail fast on values that would leak a secret, follow a surprise, or wait forever. */
class LeafConfigTest {
    private static final ApiToken TOKEN = ApiToken.of("cfg-secret-1");

    @Test
    void anHttpLeafNeedsAPlainHttpUrlAndBoundedTimeouts() {
        assertThat(HttpLeafConfig.of("http://127.0.0.1:9/license/", TOKEN).baseUrl())
                .isEqualTo(URI.create("http://127.0.0.1:9/license"));
        assertThatThrownBy(() -> HttpLeafConfig.of("http://user:pw@127.0.0.1:9/x", TOKEN))
                .isInstanceOf(IllegalArgumentException.class).hasMessageNotContaining("pw");
        assertThatThrownBy(() -> HttpLeafConfig.of("http://127.0.0.1:9/x?token=abc", TOKEN))
                .isInstanceOf(IllegalArgumentException.class).hasMessageNotContaining("abc");
        assertThatThrownBy(() -> HttpLeafConfig.of("ftp://127.0.0.1/x", TOKEN))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HttpLeafConfig.of("http://127.0.0.1:9/x", TOKEN)
                .withTimeouts(Duration.ZERO, Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class);
        assertThat(HttpLeafConfig.of("http://127.0.0.1:9/x", TOKEN).toString()).doesNotContain("cfg-secret-1");
    }

    @Test
    void thePostgresLeafKeepsThePasswordOutOfTheUrlAndValidatesItsPrefix() {
        assertThatThrownBy(() -> PostgresLeafConfig.of("jdbc:postgresql://h/db?password=pw", "root", "site_"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageNotContaining("pw");
        assertThatThrownBy(() -> PostgresLeafConfig.of("jdbc:postgresql://h/db", "root", "Bad-Prefix"))
                .isInstanceOf(IllegalArgumentException.class);
        PostgresLeafConfig config = new PostgresLeafConfig("jdbc:postgresql://h/db", "root", ApiToken.of("pg-secret-2"),
                "site_", null, null);
        assertThat(config.toString()).doesNotContain("pg-secret-2");
        assertThat(config.socketTimeout()).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void leafSpecificSettingsAreValidated() {
        HttpLeafConfig http = HttpLeafConfig.of("http://127.0.0.1:9/x", TOKEN);
        assertThatThrownBy(() -> new GitHostConfig(http, "acme/evil", true)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HostingConfig.of(http, "../1")).isInstanceOf(IllegalArgumentException.class);
        assertThat(HostingConfig.of(http, "42").projectType()).isEqualTo("php");
    }
}
