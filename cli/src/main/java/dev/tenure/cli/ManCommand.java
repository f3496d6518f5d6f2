package dev.tenure.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.tenure.cli.ExitCodes.CliException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.codegen.docgen.manpage.ManPageGenerator;

/**
 * Writes the manual pages at run time, from the commands this jar holds, so that they never
 * drift from {@code --help}. They are AsciiDoc: turning them into roff needs asciidoctor, which a
 * build that must run offline cannot count on, and which a packager who wants roff has.
 */
@Command(
        name = "man",
        description = {
            "Writes a manual page for tenure and each of its commands to --dir, as AsciiDoc.",
            "One file per command (tenure.adoc, tenure-acquire.adoc, tenure-kv-put.adoc, ...), from the",
            "same text as --help. For roff pages: asciidoctor -b manpage -D DIR DIR/*.adoc; then man -l DIR/tenure.1."
        })
final class ManCommand implements Callable<Integer> {

    @Option(
            names = "--dir",
            paramLabel = "DIR",
            description = "Where to write the pages; created if missing (default: ${DEFAULT-VALUE}).",
            defaultValue = "man")
    Path dir;

    @Option(names = "--json", description = "One JSON object on one line: dir, pages (the files written).")
    boolean json;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        Path target = dir.toAbsolutePath().normalize();
        if (Files.exists(target) && !Files.isDirectory(target)) {
            throw new CliException(ExitCodes.BAD_INPUT, "--dir " + dir + " is not a directory");
        }
        Files.createDirectories(target);
        boolean[] quiet = {};
        List<CommandSpec> commands = new ArrayList<>();
        collect(spec.root(), commands);
        int status = ManPageGenerator.generateManPage(
                target.toFile(), null, quiet, true, commands.toArray(CommandSpec[]::new));
        if (status != 0) {
            throw new CliException(ExitCodes.UNEXPECTED, "could not write the pages to " + target);
        }
        List<String> pages;
        try (Stream<Path> files = Files.list(target)) {
            pages = files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".adoc"))
                    .sorted()
                    .toList();
        }
        if (json) {
            JsonObject o = new JsonObject();
            o.addProperty("dir", target.toString());
            JsonArray names = new JsonArray();
            pages.forEach(names::add);
            o.add("pages", names);
            System.out.println(Json.line(o));
        } else {
            System.out.println("tenure: wrote " + pages.size() + " pages to " + target);
        }
        return ExitCodes.OK;
    }

    /** {@code command} and every subcommand under it, each once (an alias is the same command). */
    private static void collect(CommandSpec command, List<CommandSpec> into) {
        into.add(command);
        command.subcommands().forEach((name, sub) -> {
            if (sub.getCommandSpec().name().equals(name)) {
                collect(sub.getCommandSpec(), into);
            }
        });
    }
}
