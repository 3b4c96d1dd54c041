package dev.converge.provisioning.options;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.store.StoreConfig;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * A password never travels in {@code --db}: not as {@code password=}, and not in the URL's
 * user-info ({@code user:password@host}), where the driver would echo it in its "unknown host"
 * error. Refused before anything connects, without repeating it; and wherever a store's URL is
 * printed, a password in it reads as {@code ***}.
 */
class DatabaseUrlSecretTest {
    @Command(name = "probe")
    static final class Probe {
        @Mixin
        DatabaseOptions db = new DatabaseOptions();
    }

    private static DatabaseOptions parse(String url) {
        Probe probe = new Probe();
        new CommandLine(probe).parseArgs("--db", url);
        return probe.db;
    }

    @Test
    void aPasswordInTheUrlsUserInfoIsRefusedWithoutBeingRepeated() {
        assertThatThrownBy(() -> parse("jdbc:postgresql://root:S3cretPW@127.0.0.1:5432/x").open())
                .isInstanceOf(IllegalArgumentException.class).hasMessageNotContaining("S3cretPW")
                .hasMessageContaining("CONVERGE_DB_PASSWORD");
        assertThatThrownBy(() -> parse("jdbc:postgresql://root@127.0.0.1:5432/x").open())
                .as("a user in the URL: --db-user says it").isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--db-user");
        assertThatThrownBy(() -> parse("jdbc:postgresql://127.0.0.1:5432/x?password=S3cretPW").open())
                .isInstanceOf(IllegalArgumentException.class).hasMessageNotContaining("S3cretPW");
    }

    @Test
    void aPrintedStoreUrlNeverShowsAPassword() {
        String shown = StoreConfig.newBuilder().url("jdbc:postgresql://root:S3cretPW@db.example:5432/x?password=Other1")
                .build().toString();
        assertThat(shown).doesNotContain("S3cretPW").doesNotContain("Other1").contains("db.example");
    }
}
