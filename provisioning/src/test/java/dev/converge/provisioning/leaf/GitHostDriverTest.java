package dev.converge.provisioning.leaf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.ledger.LeafResource;
import dev.converge.ledger.ResourceExists;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class GitHostDriverTest {
    @RegisterExtension
    static final SimulatedLeaves leaves = new SimulatedLeaves();

    @Test
    void createReturnsTheFullNameAsLeafIdAndTheDescriptionAsTag() {
        LeafResource repo = leaves.gitHost().create("shop-site", "converge:site-9", null);

        assertThat(repo.leafId()).isEqualTo("acme/shop-site");
        assertThat(repo.tag()).isEqualTo("converge:site-9");
        assertThat(repo.data()).containsKey("id").containsEntry("full_name", "acme/shop-site")
                .hasEntrySatisfying("html_url", url -> assertThat((String) url).endsWith("/acme/shop-site"));
    }

    @Test
    void aTakenNameIsResourceExistsAndLookupShowsWhoseItIs() {
        leaves.gitHost().create("taken-repo", "someone-else", null);

        assertThatThrownBy(() -> leaves.gitHost().create("taken-repo", "converge:site-1", null))
                .isInstanceOfSatisfying(ResourceExists.class,
                        exists -> assertThat(exists.naturalKey()).isEqualTo("taken-repo"));
        assertThat(leaves.gitHost().find("taken-repo")).hasValueSatisfying(
                found -> assertThat(found.tag()).isEqualTo("someone-else"));
    }

    @Test
    void listFollowsPagesBeyondOneHundredRepositories() {
        GitHostDriver driver = new GitHostDriver(new GitHostConfig(
                leaves.http("githost", SimulatedLeaves.GITHOST_TOKEN), "big-org", false));
        for (int i = 0; i < 103; i++) {
            driver.create("r" + i, "t" + i, null);
        }
        List<LeafResource> all = driver.list();

        assertThat(all).hasSize(103);
        assertThat(all).extracting(LeafResource::naturalKey).doesNotHaveDuplicates().contains("r0", "r102");
    }

    @Test
    void refusesNamesAndIdsThatWouldEscapeThePath() {
        assertThatThrownBy(() -> leaves.gitHost().create("../x", "t", null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> leaves.gitHost().delete("acme/x/../../y"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> leaves.gitHost().find("a b")).isInstanceOf(IllegalArgumentException.class);
    }
}
