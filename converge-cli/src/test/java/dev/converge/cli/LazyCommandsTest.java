package dev.converge.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * A start that names its subcommand builds that one only, and runs exactly as the full command
 * line would: the same usage, the same options, the same answers to a mistake.
 */
class LazyCommandsTest {

    @Test
    void aNamedSubcommandIsTheOnlyOneBuilt() {
        assertThat(Main.commandLine(new String[] {"worker", "--db", "jdbc:h2:mem:x"}).getSubcommands().keySet())
                .containsExactlyInAnyOrder("help", "worker");
        assertThat(Main.commandLine(new String[] {"--log-format", "json", "tenant", "create"}).getSubcommands().keySet())
                .containsExactlyInAnyOrder("help", "tenant");
        assertThat(Main.commandLine(new String[] {"--log-format=json", "mcp"}).getSubcommands().keySet())
                .containsExactlyInAnyOrder("help", "mcp");
    }

    @Test
    void anythingElseGetsEverySubcommand() {
        int all = Main.commandLine().getSubcommands().size();
        assertThat(all).isGreaterThan(10);
        for (String[] args : List.of(new String[] {}, new String[] {"--help"}, new String[] {"-h", "worker"},
                new String[] {"help", "worker"}, new String[] {"wroker"}, new String[] {"--version"},
                new String[] {"--log-format"}, new String[] {"--log-format", "json"})) {
            assertThat(Main.commandLine(args).getSubcommands()).as(String.join(" ", args)).hasSize(all);
        }
    }

    @Test
    void eachSubcommandAloneHasTheSameUsageAsInTheFullCommandLine() {
        CommandLine full = Main.commandLine();
        List<String> names = new ArrayList<>(full.getSubcommands().keySet());
        names.remove("help");
        assertThat(names).hasSizeGreaterThan(10);
        for (String name : names) {
            CommandLine alone = Main.commandLine(new String[] {name}).getSubcommands().get(name);
            assertThat(alone).as(name).isNotNull();
            assertThat(alone.getUsageMessage(CommandLine.Help.Ansi.OFF))
                    .isEqualTo(full.getSubcommands().get(name).getUsageMessage(CommandLine.Help.Ansi.OFF));
        }
    }

    @Test
    void aMistakeAfterTheNameIsAnsweredAsBefore() {
        String[] args = {"worker", "--no-such-option"};
        StringWriter lazyErr = new StringWriter();
        StringWriter fullErr = new StringWriter();
        CommandLine lazy = Main.commandLine(args);
        lazy.setErr(new PrintWriter(lazyErr, true));
        CommandLine full = Main.commandLine();
        full.setErr(new PrintWriter(fullErr, true));

        int lazyExit = lazy.execute(args);
        int fullExit = full.execute(args);

        assertThat(lazyExit).isEqualTo(fullExit).isEqualTo(2);
        assertThat(lazyErr.toString()).contains("Unknown option: '--no-such-option'").isEqualTo(fullErr.toString());
    }
}
