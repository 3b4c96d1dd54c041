package dev.converge;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every public type of the API packages, and every public static method (the factories users start
 * from: {@code JobType.of}, {@code Job.of}, {@code Converge.builder}, ...), has a javadoc comment,
 * so that the IDE shows what it does. The build's javadoc run ({@code doclint}) checks that what the
 * comments say is well formed; this checks that they are there.
 */
class PublicJavadocTest {
    private static final Path SOURCES = Path.of("src/main/java");
    private static final Pattern TYPE = Pattern.compile(
            "^\\s*public (?:(?:static|final|abstract|sealed|non-sealed)\\s+)*(?:class|interface|record|enum|@interface)\\s+\\w+.*");
    private static final Pattern FACTORY = Pattern.compile("^\\s*public static (?:<[^>]+>\\s+)?[\\w.<>\\[\\], ?]+\\s+\\w+\\(.*");

    @Test
    void everyPublicTypeAndFactoryHasJavadoc() throws IOException {
        assertThat(undocumented(SOURCES)).as("public types and static methods without javadoc").isEmpty();
    }

    @Test
    void theCheckFindsAnUndocumentedFactory() throws IOException {
        Path dir = Files.createTempDirectory("javadoc-check");
        Path file = dir.resolve("dev/converge/sample/Sample.java");
        Files.createDirectories(file.getParent());
        Files.writeString(file, """
                package dev.converge.sample;

                /** Documented. */
                public final class Sample {
                    /** Documented. */
                    @Deprecated
                    public static Sample documented() {
                        return new Sample();
                    }

                    public static Sample bare() {
                        return new Sample();
                    }
                }
                """);
        assertThat(undocumented(dir)).containsExactly("dev/converge/sample/Sample.java:11: public static Sample bare() {");
    }

    static List<String> undocumented(Path root) throws IOException {
        List<String> missing = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                String relative = root.relativize(f).toString().replace('\\', '/');
                if (relative.contains("/internal/")) {
                    continue;
                }
                List<String> lines = Files.readAllLines(f);
                for (int i = 0; i < lines.size(); i++) {
                    String line = lines.get(i);
                    if (!TYPE.matcher(line).matches() && !FACTORY.matcher(line).matches()) {
                        continue;
                    }
                    int j = i - 1;
                    while (j >= 0 && lines.get(j).strip().startsWith("@")) {
                        j--;
                    }
                    if (j < 0 || !lines.get(j).strip().endsWith("*/")) {
                        missing.add(relative + ":" + (i + 1) + ": " + line.strip());
                    }
                }
            }
        }
        return missing;
    }
}
