package dev.converge.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.Jdks;
import java.nio.file.Path;
import java.util.Optional;
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
        Matcher on = Jdks.run(java.get(), VirtualStarterMain.class, RAN_ON, "true");
        assertThat(on.group(2)).as("virtual, with the switch on").isEqualTo("true");
        assertThat(on.group(1)).startsWith("converge-handler-");
        Matcher off = Jdks.run(java.get(), VirtualStarterMain.class, RAN_ON, "false");
        assertThat(off.group(2)).as("virtual, with the switch off").isEqualTo("false");
        assertThat(off.group(1)).startsWith("converge-default-");
    }

    @Test
    void onAJdkWithoutVirtualThreadsTheSwitchLeavesThePlatformThreads() throws Exception {
        Assumptions.assumeTrue(Runtime.version().feature() < 21, "this JVM has virtual threads: the test above covers it");
        Matcher on = Jdks.run(Path.of(System.getProperty("java.home"), "bin", "java"), VirtualStarterMain.class, RAN_ON, "true");
        assertThat(on.group(1)).startsWith("converge-default-");
    }
}
