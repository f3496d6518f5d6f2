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

/** {@code --help} works on every command and subcommand, exits 0 and prints that command's usage. */
class HelpTest {

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
