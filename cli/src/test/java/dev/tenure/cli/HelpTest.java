package dev.tenure.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code --help} works on every command and subcommand, exits 0 and prints that command's usage;
 * the one-line summary each command shows in its parent's list is a whole sentence.
 */
class HelpTest {

    /**
     * The list of commands in {@code tenure --help} shows the first line of each command's
     * description (its header, if it had one). The rule: that line is one whole sentence, so it
     * ends with a full stop and leaves no clause hanging.
     */
    @Test
    void everySummaryLineIsAWholeSentence() {
        List<CommandLine> commands = new ArrayList<>();
        walk(new CommandLine(new Main()), commands);
        assertThat(commands).as("the command tree").hasSizeGreaterThan(10);
        for (CommandLine command : commands) {
            String name = command.getCommandSpec().qualifiedName();
            String summary = summary(command);
            assertThat(summary).as(name).isNotBlank().endsWith(".").doesNotContain("${");
        }
    }

    private static String summary(CommandLine command) {
        CommandLine.Model.UsageMessageSpec usage = command.getCommandSpec().usageMessage();
        String[] lines = usage.header().length > 0 ? usage.header() : usage.description();
        if (lines.length == 0) {
            return "";
        }
        // The line whole, as written (the list may wrap it); no variable is left to resolve in it.
        return lines[0].strip();
    }

    private static void walk(CommandLine command, List<CommandLine> into) {
        into.add(command);
        command.getSubcommands().forEach((name, sub) -> {
            if (sub.getCommandSpec().name().equals(name)) {
                walk(sub, into);
            }
        });
    }

    @Test
    void everyCommandAndSubcommandTakesHelpAndExitsZero() {
        List<List<String>> paths = new ArrayList<>();
        collect(new CommandLine(new Main()), new ArrayList<>(), paths);
        assertThat(paths).as("the command tree").hasSizeGreaterThan(10);
        for (List<String> path : paths) {
            List<String> args = new ArrayList<>(path);
            args.add("--help");
            StringWriter err = new StringWriter();
            PrintStream stdout = System.out;
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            int code;
            try {
                code = Main.run(new PrintWriter(err, true), args.toArray(String[]::new));
            } finally {
                System.setOut(stdout);
            }
            String usage = out.toString(StandardCharsets.UTF_8);
            assertThat(code).as(String.join(" ", args) + ": " + err).isZero();
            String leaf = path.isEmpty() ? "tenure" : path.get(path.size() - 1);
            assertThat(usage).as(String.join(" ", args)).contains("Usage:").contains(leaf);
        }
    }

    private static void collect(CommandLine command, List<String> path, List<List<String>> into) {
        into.add(List.copyOf(path));
        command.getSubcommands().forEach((name, sub) -> {
            if (!sub.getCommandSpec().name().equals(name)) {
                return; // an alias of a subcommand already collected
            }
            List<String> deeper = new ArrayList<>(path);
            deeper.add(name);
            collect(sub, deeper, into);
        });
    }
}
