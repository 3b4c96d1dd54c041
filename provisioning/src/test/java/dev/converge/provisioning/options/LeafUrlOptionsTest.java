package dev.converge.provisioning.options;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.provisioning.config.ProvisioningConfig;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine;

/** Each leaf can face its own service; {@code --leafsim-url} stays the shortcut for the rest. */
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
    void aLeafUrlWithCredentialsInItIsRefused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> parse("--dev", "--license-url",
                "https://user:secret@licenses.example")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("secret");
    }
}
