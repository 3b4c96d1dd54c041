package dev.converge.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Queue and type names are checked by hand; they must accept exactly what the documented pattern does. */
class JobTypeNameTest {
    private static final Pattern DOCUMENTED = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,199}");

    @Test
    void acceptsExactlyTheDocumentedPattern() {
        List<String> names = new ArrayList<>(List.of("", "a", "Z", "0", "9", ".a", "_a", ":a", "-a", "a.b_c:d-e",
                "bench-single", "a b", "a/b", "a\u00e9", "\u00e9a", "a\n", "A@", "[a]", "a`", "a{", "a~", "a,b", "a;b",
                "a+b", "a=b", "a*b", "a\u0000", "a\u0660", "Ab9.:_-"));
        names.add("a".repeat(200));
        names.add("a".repeat(201));
        names.add("9" + ".".repeat(199));
        names.add("9" + ".".repeat(200));
        for (char ch = 0; ch < 256; ch++) {
            names.add(String.valueOf(ch));
            names.add("a" + ch);
        }
        for (String n : names) {
            assertThat(JobType.validName(n)).as("'%s'", n).isEqualTo(DOCUMENTED.matcher(n).matches());
        }
    }

    @Test
    void aBadQueueOrTypeNameIsRefused() {
        assertThatThrownBy(() -> JobType.of("bad name", String.class)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("job type name");
        assertThatThrownBy(() -> Job.of(JobType.of("ok", String.class), "x").queue(".hidden"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("queue name");
        assertThatThrownBy(() -> Job.of(JobType.of("ok", String.class), "x").queue(null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(Job.of(JobType.of("ok", String.class), "x").queue("a.b:c-d_e").effectiveQueue()).isEqualTo("a.b:c-d_e");
    }
}
