package dev.converge.provisioning.options;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.Jdks;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code --virtual-threads} runs a node's handlers on virtual threads where the JDK has them, and is refused,
 * saying why, where it has not.
 */
class VirtualThreadsFlagTest {
    private static final Pattern RAN_ON = Pattern.compile("handler ran on (\\S+) virtual=(true|false)");

    @Command(name = "probe")
    static final class Probe {
        @Mixin
        NodeFlags node = new NodeFlags();
    }

    @Test
    void onAJdkWithoutVirtualThreadsTheFlagIsRefusedWithWhatToDo() {
        Assumptions.assumeTrue(Runtime.version().feature() < 21, "this JVM has virtual threads: the test below covers it");
        Probe probe = new Probe();
        new CommandLine(probe).parseArgs("--virtual-threads");
        assertThatThrownBy(() -> probe.node.options(4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--virtual-threads needs JDK 21 or later")
                .hasMessageContaining("newer java on the PATH");
    }

    @Test
    void theFlagPutsTheHandlersOnVirtualThreads() throws Exception {
        Optional<Path> java = Jdks.javaOf(21);
        Assumptions.assumeTrue(java.isPresent(), "no JDK 21 or later on this machine (java.home or /usr/lib/jvm)");
        Matcher with = Jdks.run(java.get(), VirtualThreadsFlagMain.class, RAN_ON, "--virtual-threads");
        assertThat(with.group(2)).as("virtual, with the flag").isEqualTo("true");
        assertThat(with.group(1)).startsWith("converge-handler-");
        Matcher without = Jdks.run(java.get(), VirtualThreadsFlagMain.class, RAN_ON);
        assertThat(without.group(2)).as("virtual, without the flag").isEqualTo("false");
        assertThat(without.group(1)).startsWith("converge-default-");
    }
}
