package dev.converge.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Resource types and leaf calls from functions: what they declare is what the ledger sees. */
class LessCeremonyTest {
    final Map<String, LeafResource> leaf = new HashMap<>();

    ResourceType.Builder contacts() {
        return ResourceType.named("crm.contact")
                .createdBy(RepetitionSafety.IDEMPOTENT_BY_CONSTRAINT, req -> {
                    LeafResource r = new LeafResource("c-" + (leaf.size() + 1), req.naturalKey(), req.tag(), Map.of());
                    leaf.put(req.naturalKey(), r);
                    return r;
                })
                .deletedBy(r -> leaf.remove(r.naturalKey()));
    }

    @Test
    void aBuiltTypeWithALookupSupportsIt() throws Exception {
        ResourceType type = contacts().findBy(key -> Optional.ofNullable(leaf.get(key)))
                .listedBy(() -> List.copyOf(leaf.values())).build();
        assertThat(type.kind()).isEqualTo("crm.contact");
        assertThat(type.createSafety()).isEqualTo(RepetitionSafety.IDEMPOTENT_BY_CONSTRAINT);
        assertThat(type.supportsLookup()).isTrue();
        LeafResource made = type.create(new CreateRequest("ada@example.com", "converge:order-1", null, Map.of()));
        assertThat(type.find("ada@example.com")).contains(made);
        assertThat(type.list()).containsExactly(made);
        type.delete(made);
        assertThat(type.find("ada@example.com")).isEmpty();
    }

    @Test
    void aTypeWithoutALookupSaysSoAndOneThatNeedsItIsRefused() {
        ResourceType byKey = ResourceType.named("payment.charge")
                .createdBy(RepetitionSafety.IDEMPOTENT_BY_KEY, req -> new LeafResource("p", req.naturalKey(), req.tag(), Map.of()))
                .deletedBy(r -> { }).build();
        assertThat(byKey.supportsLookup()).isFalse();
        assertThatThrownBy(() -> contacts().build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("needs findBy");
        assertThatThrownBy(() -> ResourceType.named("x").build()).hasMessageContaining("createdBy");
    }

    @Test
    void aLeafCallFromAFunction() throws Exception {
        LeafCall<String> deploy = LeafCall.of("deploy", RepetitionSafety.NATURALLY_IDEMPOTENT, key -> "deployed with " + key);
        assertThat(deploy.name()).isEqualTo("deploy");
        assertThat(deploy.safety()).isEqualTo(RepetitionSafety.NATURALLY_IDEMPOTENT);
        assertThat(deploy.call("cv-1-1")).isEqualTo("deployed with cv-1-1");
        assertThatThrownBy(() -> LeafCall.of(" ", RepetitionSafety.READ_ONLY, k -> k)).hasMessageContaining("name");
    }
}
