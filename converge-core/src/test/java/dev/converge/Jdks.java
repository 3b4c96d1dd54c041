package dev.converge;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
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

    /**
     * Runs {@code main} with these arguments on {@code java} and this JVM's class path (a small heap, the
     * first compiler tier), waits at most 90 s, and returns the first match of {@code result} in what it
     * printed; fails with the whole output when it did not end or printed no match.
     */
    public static Matcher run(Path java, Class<?> main, Pattern result, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(java.toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        Path log = Files.createTempFile(main.getSimpleName(), ".log");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            boolean ended = p.waitFor(90, TimeUnit.SECONDS);
            String out = Files.readString(log, StandardCharsets.UTF_8);
            Matcher m = result.matcher(out);
            if (!ended || !m.find()) {
                throw new AssertionError(main.getSimpleName() + " " + List.of(args) + " "
                        + (ended ? "printed no " + result : "did not end within 90 s") + ":\n" + out);
            }
            return m;
        } finally {
            p.destroyForcibly();
            Files.deleteIfExists(log);
        }
    }
}
