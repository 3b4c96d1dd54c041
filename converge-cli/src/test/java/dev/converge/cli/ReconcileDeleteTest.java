package dev.converge.cli;

import dev.converge.ledger.LeafResource;
import dev.converge.ledger.ResourceTags;
import dev.converge.provisioning.options.ServiceOptions;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** reconcile --delete removes only orphans carrying the exact tag of one of this store's sites, in this installation. */
class ReconcileDeleteTest {
    private static LeafResource tagged(String tag) {
        return new LeafResource("id", "key", tag, Map.of());
    }

    @Test
    void onlyTheExactTagOfASiteOfThisStoreIsDeletable() {
        ResourceTags tags = ResourceTags.of("prod");
        Set<Long> ours = Set.of(7L);
        assertThat(ReconcileCommand.deletable(tags, tagged("converge:prod:site-7"), ours::contains)).isTrue();
        assertThat(ReconcileCommand.deletable(tags, tagged("converge:prod:site-8"), ours::contains))
                .as("a site this store does not have").isFalse();
        for (String tag : new String[] {null, "", "converge:", "converge:prod:", "converge:prod:anything",
                "converge:prod:site-07", "converge:prod:site-7x", "xconverge:prod:site-7", "converge:prod:site-7 ",
                "converge:staging:site-7", "converge:site-7", "converge:default:site-7", "converge:prodx:site-7",
                "converge:prod:stg:site-7"}) {
            assertThat(ReconcileCommand.deletable(tags, tagged(tag), ours::contains)).as(String.valueOf(tag)).isFalse();
        }
    }

    @Test
    void theInstallationIsItsNameOrAnHmacOfItUnderTheSecret() {
        assertThat(ServiceOptions.installationTags("prod", null).installation()).isEqualTo("prod");
        String secret = "0123456789abcdef-secret";
        String keyed = ServiceOptions.installationTags("prod", secret).installation();
        assertThat(keyed).matches("[0-9a-f]{32}").doesNotContain("prod");
        assertThat(ServiceOptions.installationTags("prod", secret).installation()).isEqualTo(keyed);
        assertThat(ServiceOptions.installationTags("staging", secret).installation()).isNotEqualTo(keyed);
        assertThat(ServiceOptions.installationTags("prod", secret + "x").installation()).isNotEqualTo(keyed);
        assertThatThrownBy(() -> ServiceOptions.installationTags("a:b", null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ServiceOptions.installationTags("prod", "short"))
                .isInstanceOf(IllegalArgumentException.class).message().doesNotContain("short");
    }
}
