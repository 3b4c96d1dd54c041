package dev.converge;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The JDKs of this machine, for tests that need a feature of a newer one than the build's (virtual threads). */
public final class Jdks {
    private static final Pattern VERSION = Pattern.compile("^JAVA_VERSION=\"(\\d+)");

    private Jdks() {
    }

    /** This JVM's java if it is of {@code feature} or later, else the newest such JDK under /usr/lib/jvm. */
    public static Optional<Path> javaOf(int feature) throws IOException {
        if (Runtime.version().feature() >= feature) {
            return Optional.of(Path.of(System.getProperty("java.home"), "bin", "java"));
        }
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return Optional.empty();
        }
        try (Stream<Path> homes = Files.list(jvms)) {
            return homes.filter(h -> Files.isExecutable(h.resolve("bin/java")) && major(h) >= feature)
                    .max((a, b) -> Integer.compare(major(a), major(b))).map(h -> h.resolve("bin/java"));
        }
    }

    /** The feature version a JDK's release file names (JAVA_VERSION="25.0.3": 25); 0 if none. */
    private static int major(Path home) {
        try {
            for (String line : Files.readAllLines(home.resolve("release"))) {
                Matcher m = VERSION.matcher(line);
                if (m.find()) {
                    return Integer.parseInt(m.group(1));
                }
            }
        } catch (IOException e) {
            return 0;
        }
        return 0;
    }
}
