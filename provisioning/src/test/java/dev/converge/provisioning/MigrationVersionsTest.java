package dev.converge.provisioning;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The list of the service's PostgreSQL migrations, which lets a node on a current schema start without
 * Flyway, names exactly the scripts beside it: a script added without its line would never be applied
 * to a database that has all the others (every node would find the list satisfied and skip Flyway).
 */
class MigrationVersionsTest {
    private static final Pattern VERSIONED = Pattern.compile("V(\\d+(?:[._]\\d+)*)__.*\\.sql");

    @Test
    void theListNamesEveryScript() throws Exception {
        URL dir = getClass().getClassLoader().getResource("db/provisioning/postgresql");
        assertThat(dir).isNotNull();
        TreeSet<String> scripts = new TreeSet<>();
        for (String name : new File(dir.toURI()).list()) {
            Matcher m = VERSIONED.matcher(name);
            assertThat(m.matches()).as("%s is a versioned migration", name).isTrue();
            scripts.add(m.group(1).replace('_', '.'));
        }
        TreeSet<String> listed = new TreeSet<>();
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("db/provisioning/postgresql.versions")) {
            assertThat(in).as("db/provisioning/postgresql.versions").isNotNull();
            Arrays.stream(new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")).map(String::strip)
                    .filter(s -> !s.isEmpty()).forEach(listed::add);
        }
        assertThat(listed).isEqualTo(scripts);
    }
}
