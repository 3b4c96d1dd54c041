package dev.converge.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.Jdks;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * {@code spring.threads.virtual.enabled=true}, Spring Boot's own switch, puts the starter's handlers on virtual
 * threads where the JDK has them (21 and later, in a JVM of its own found on this machine), and leaves them on
 * the engine's platform threads where it does not (this JVM when it is older) or when the switch is off.
 */
class VirtualHandlerThreadsStarterTest {
    private static final Pattern RAN_ON = Pattern.compile("handler ran on (\\S+) virtual=(true|false)");

    @Test
    void bootsVirtualThreadSwitchPutsHandlersOnVirtualThreads() throws Exception {
        Optional<Path> java = Jdks.javaOf(21);
        Assumptions.assumeTrue(java.isPresent(), "no JDK 21 or later on this machine (java.home or /usr/lib/jvm)");
        Matcher on = run(java.get(), "true");
        assertThat(on.group(2)).as("virtual, with the switch on").isEqualTo("true");
        assertThat(on.group(1)).startsWith("converge-handler-");
        Matcher off = run(java.get(), "false");
        assertThat(off.group(2)).as("virtual, with the switch off").isEqualTo("false");
        assertThat(off.group(1)).startsWith("converge-default-");
    }

    @Test
    void onAJdkWithoutVirtualThreadsTheSwitchLeavesThePlatformThreads() throws Exception {
        Assumptions.assumeTrue(Runtime.version().feature() < 21, "this JVM has virtual threads: the test above covers it");
        Matcher on = run(Path.of(System.getProperty("java.home"), "bin", "java"), "true");
        assertThat(on.group(1)).startsWith("converge-default-");
    }

    private static Matcher run(Path java, String virtual) throws IOException, InterruptedException {
        Path log = Files.createTempFile("virtual-starter-" + virtual, ".log");
        Process p = new ProcessBuilder(List.of(java.toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), VirtualStarterMain.class.getName(), virtual))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            boolean ended = p.waitFor(90, TimeUnit.SECONDS);
            String out = Files.readString(log, StandardCharsets.UTF_8);
            Matcher m = RAN_ON.matcher(out);
            if (!ended || !m.find()) {
                throw new AssertionError("the child (spring.threads.virtual.enabled=" + virtual + ") "
                        + (ended ? "printed no thread" : "did not end within 90 s") + ":\n" + out);
            }
            return m;
        } finally {
            p.destroyForcibly();
            Files.deleteIfExists(log);
        }
    }
}
