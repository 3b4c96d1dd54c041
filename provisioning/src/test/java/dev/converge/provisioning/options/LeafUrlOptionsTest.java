package dev.converge.provisioning.options;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.provisioning.config.ProvisioningConfig;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine;

/**
 * Each leaf can face its own service; {@code --leafsim-url} stays the shortcut for the rest. The
 * account link and the trial are read as documented.
 */
class LeafUrlOptionsTest {
    @Command(name = "probe")
    static final class Probe {
        @Mixin
        ServiceOptions options = new ServiceOptions();
    }

    private static ProvisioningConfig parse(String... args) {
        Probe probe = new Probe();
        new CommandLine(probe).parseArgs(args);
        return probe.options.config();
    }

    @Test
    void theLeafsimShortcutPointsEveryLeafAtItsPathUnderTheSimulator() {
        ProvisioningConfig config = parse("--dev", "--leafsim-url", "http://127.0.0.1:9999/");

        assertThat(config.gitHost().http().baseUrl()).hasToString("http://127.0.0.1:9999/githost");
        assertThat(config.hosting().http().baseUrl()).hasToString("http://127.0.0.1:9999/hosting");
        assertThat(config.license().http().baseUrl()).hasToString("http://127.0.0.1:9999/license");
    }

    @Test
    void aLeafGivenItsOwnUrlFacesThatServiceAndTheOthersKeepTheShortcut() {
        ProvisioningConfig config = parse("--dev", "--leafsim-url", "http://127.0.0.1:9999",
                "--githost-url", "https://api.github.com", "--hosting-url", "https://forge.laravel.com/api/v1");

        assertThat(config.gitHost().http().baseUrl()).hasToString("https://api.github.com");
        assertThat(config.hosting().http().baseUrl()).hasToString("https://forge.laravel.com/api/v1");
        assertThat(config.license().http().baseUrl()).hasToString("http://127.0.0.1:9999/license");
    }

    @Test
    void theSmtpServersTimeoutDefaultsAboveWhatRfc5321AsksForAndIsBounded() {
        assertThat(parse("--dev").smtp().serverTimeout()).isEqualTo(java.time.Duration.ofMinutes(10));
        assertThat(parse("--dev", "--smtp-server-timeout", "300s").smtp().serverTimeout())
                .isEqualTo(java.time.Duration.ofMinutes(5));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> parse("--dev", "--smtp-server-timeout", "2h"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 1h");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> parse("--dev", "--smtp-server-timeout", "0s"))
                .isInstanceOf(CommandLine.ParameterException.class);
    }

    @Test
    void aLeafUrlWithCredentialsInItIsRefused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> parse("--dev", "--license-url",
                "https://user:secret@licenses.example")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("secret");
    }

    @Test
    void theAccountUrlDefaultsToTheSiteUnderThePublicUrlAndAnExplicitOneWins() {
        assertThat(parse("--dev").accountUrl()).as("neither given").isNull();
        assertThat(parse("--dev", "--public-url", "https://api.sites.example/").accountUrl())
                .isEqualTo("https://api.sites.example/v1/sites/{site_id}");
        assertThat(parse("--dev", "--public-url", "https://api.sites.example", "--account-url",
                "https://my.sites.example/account/{site_id}").accountUrl())
                .isEqualTo("https://my.sites.example/account/{site_id}");
        Probe server = new Probe();
        new CommandLine(server).parseArgs("--dev");
        server.options.defaultPublicUrl("http://127.0.0.1:8080");
        assertThat(server.options.config().accountUrl()).isEqualTo("http://127.0.0.1:8080/v1/sites/{site_id}");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> parse("--dev", "--public-url", "ftp://x.example"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--public-url");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> parse("--dev", "--public-url",
                "https://u:secret@x.example")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("secret");
    }

    @Test
    void aTrialIsGivenAsADurationOrInDaysNotBoth() {
        assertThat(parse("--dev", "--trial", "90s").trialWindow()).isEqualTo(java.time.Duration.ofSeconds(90));
        assertThat(parse("--dev", "--trial", "90s").trialReminder()).as("a quarter").isEqualTo(java.time.Duration.ofMillis(22_500));
        assertThat(parse("--dev", "--trial-days", "14").trialReminder()).as("at most 3 days").isEqualTo(java.time.Duration.ofDays(3));
        assertThat(parse("--dev", "--trial", "14d", "--trial-reminder", "1d").trialReminder())
                .isEqualTo(java.time.Duration.ofDays(1));
        assertThat(parse("--dev").trialWindow()).isNull();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> parse("--dev", "--trial", "2d", "--trial-days", "2"))
                .isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> parse("--dev", "--trial", "1h", "--trial-reminder", "2h"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--trial-reminder (PT2H) must be shorter");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> parse("--dev", "--trial-reminder", "2h"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--trial");
    }

    @Test
    void theHostingDriverSpeaksForgesCurrentApiUnlessTheLegacyOneIsAskedFor() {
        assertThat(parse("--dev").hosting().currentApi()).as("the current API by default").isTrue();
        assertThat(parse("--dev", "--hosting-legacy-v1").hosting().currentApi()).isFalse();
        ProvisioningConfig current = parse("--dev", "--hosting-org", "acme", "--hosting-server", "42");
        assertThat(current.hosting().currentApi()).isTrue();
        assertThat(current.hosting().org()).isEqualTo("acme");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> parse("--dev", "--hosting-org", "../x"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
