package dev.tenure.cli;

import dev.tenure.cli.ExitCodes.CliException;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Compose;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * {@code tenure server --config FILE}: a YAML file whose keys are the server's long option names
 * without the dashes, turned into the options they name. Flags given on the command line win:
 * the file's options are placed before them, and a single-valued option the command line gives
 * is dropped from the file's. Each entry is checked alone as the option it names, so that a bad
 * one is reported with its key and line before anything starts.
 *
 * <p>Two keys take a structure: {@code members} (a list of {@code id}, {@code host}, {@code port}
 * and an optional {@code cluster-port-base}, or the flag's own string) and {@code limits} (a map
 * of limit name to value, as {@code --limit NAME=VALUE}).
 */
final class ServerConfigFile {
    static final String OPTION = "--config";
    static final String MEMBERS = "members";
    static final String LIMITS = "limits";
    static final String LOG_LEVEL = "log-level";

    /** Keys a file may not set: they are about reading the file or this one invocation. */
    private static final List<String> NOT_IN_FILE = List.of("config", "print-config", "help", "version");

    /** The file's size limit: a configuration is a few kilobytes; anything larger is a mistake. */
    static final int FILE_BYTES_MAX = 1 << 20;

    private ServerConfigFile() {}

    /** One option the file gives: the flag's arguments, and where in the file it came from. */
    record Entry(String key, int line, List<String> args) {}

    /**
     * {@code args} (which start with {@code server}) with the options of the file their
     * {@code --config} names put before the command line's own; {@code args} as they are without
     * one. A file that cannot be read, or an entry that is not a valid option, is bad input
     * naming the file, the line and the key.
     */
    static String[] expand(String[] args) {
        Optional<Path> file = configFile(args);
        if (file.isEmpty()) {
            return args;
        }
        List<String> given = List.of(args).subList(1, args.length);
        ParseResult commandLine = parse(given, "the command line");
        List<String> out = new ArrayList<>();
        out.add(args[0]);
        for (Entry e : read(file.get())) {
            check(file.get(), e);
            OptionSpec option = commandLine.commandSpec().findOption("--" + e.key());
            boolean overridden = option != null && !option.isMultiValue() && commandLine.hasMatchedOption(option);
            if (!overridden) {
                out.addAll(e.args());
            }
        }
        out.addAll(given);
        return out.toArray(String[]::new);
    }

    /** The path after {@code --config} (or in {@code --config=PATH}) of a {@code server} command. */
    static Optional<Path> configFile(String[] args) {
        if (args.length == 0 || !"server".equals(args[0])) {
            return Optional.empty();
        }
        for (int i = 1; i < args.length; i++) {
            if ("--".equals(args[i])) {
                break;
            }
            if (OPTION.equals(args[i])) {
                if (i + 1 >= args.length) {
                    throw new CliException(ExitCodes.BAD_INPUT, OPTION + " needs a FILE");
                }
                return Optional.of(Path.of(args[i + 1]));
            }
            if (args[i].startsWith(OPTION + "=")) {
                return Optional.of(Path.of(args[i].substring(OPTION.length() + 1)));
            }
        }
        return Optional.empty();
    }

    /** The file's entries in file order; bad input for a file that is not a mapping of known keys. */
    static List<Entry> read(Path file) {
        Node root = compose(file);
        if (!(root instanceof MappingNode mapping)) {
            throw bad(file, line(root), "the file must be a mapping of option names to values");
        }
        CommandSpec spec = new CommandLine(new ServerCommand()).getCommandSpec();
        List<Entry> entries = new ArrayList<>();
        TreeSet<String> seen = new TreeSet<>();
        for (NodeTuple t : mapping.getValue()) {
            String key = scalar(file, t.getKeyNode(), "a key");
            int line = line(t.getKeyNode());
            if (!seen.add(key)) {
                throw bad(file, line, key + ": given twice");
            }
            entries.add(entry(file, spec, key, line, t.getValueNode()));
        }
        return entries;
    }

    private static Entry entry(Path file, CommandSpec spec, String key, int line, Node value) {
        if (MEMBERS.equals(key)) {
            return new Entry(key, line, List.of("--members", members(file, value)));
        }
        if (LIMITS.equals(key)) {
            return new Entry(key, line, limits(file, value));
        }
        OptionSpec option = NOT_IN_FILE.contains(key) ? null : spec.findOption("--" + key);
        if (option == null || "limit".equals(key)) {
            throw bad(file, line, "unknown key '" + key + "'; the keys are " + keys(spec));
        }
        if (option.isMultiValue()) {
            List<String> args = new ArrayList<>();
            for (String item : items(file, key, value)) {
                args.add(option.longestName());
                args.add(item);
            }
            return new Entry(key, line, args);
        }
        String text = scalar(file, value, key);
        if (option.arity().max() == 0) { // a switch: on, or left off
            return switch (text.toLowerCase(Locale.ROOT)) {
                case "true" -> new Entry(key, line, List.of(option.longestName()));
                case "false" -> new Entry(key, line, List.of());
                default -> throw bad(file, line(value), key + ": '" + text + "' is not true or false");
            };
        }
        return new Entry(key, line, List.of(option.longestName(), text));
    }

    /** {@code members} as the flag's string: the string itself, or a list of member mappings. */
    private static String members(Path file, Node value) {
        if (value instanceof ScalarNode) {
            return scalar(file, value, MEMBERS);
        }
        if (!(value instanceof SequenceNode list)) {
            throw bad(file, line(value), MEMBERS + ": a list of {id, host, port[, cluster-port-base]}");
        }
        List<String> parts = new ArrayList<>();
        for (Node item : list.getValue()) {
            Map<String, String> m = mapping(file, MEMBERS, item);
            for (String k : m.keySet()) {
                if (!List.of("id", "host", "port", "cluster-port-base").contains(k)) {
                    throw bad(
                            file,
                            line(item),
                            MEMBERS + ": unknown key '" + k + "'; a member has id, host, port and cluster-port-base");
                }
            }
            for (String required : List.of("id", "host", "port")) {
                if (!m.containsKey(required)) {
                    throw bad(file, line(item), MEMBERS + ": a member without '" + required + "'");
                }
            }
            String base = m.containsKey("cluster-port-base") ? "@" + m.get("cluster-port-base") : "";
            parts.add(m.get("id") + "=" + m.get("host") + ":" + m.get("port") + base);
        }
        return String.join(",", parts);
    }

    /** {@code limits} as {@code --limit NAME=VALUE} arguments. */
    private static List<String> limits(Path file, Node value) {
        List<String> args = new ArrayList<>();
        for (Map.Entry<String, String> e : mapping(file, LIMITS, value).entrySet()) {
            args.add("--limit");
            args.add(e.getKey() + "=" + e.getValue());
        }
        return args;
    }

    /** An entry checked alone as the option it names: a bad value is reported with key and line. */
    private static void check(Path file, Entry e) {
        try {
            ServerCommand alone = new ServerCommand();
            new CommandLine(alone).parseArgs(e.args().toArray(String[]::new));
            if (LIMITS.equals(e.key())) {
                LimitOptions.apply(dev.tenure.core.Limits.defaults(), alone.limits);
            }
            if (MEMBERS.equals(e.key())) {
                dev.tenure.server.config.ServerConfig.parseMembers(e.args().get(1));
            }
            if (LOG_LEVEL.equals(e.key())) {
                // Levels are read once logging starts; a bad one is named here, with its line.
                var unused = LogSettings.of(LogSettings.Format.TEXT, alone.logLevels);
            }
        } catch (ParameterException | IllegalArgumentException ex) {
            throw bad(file, e.line(), e.key() + ": " + ex.getMessage());
        }
    }

    private static ParseResult parse(List<String> args, String where) {
        try {
            return new CommandLine(new ServerCommand()).parseArgs(args.toArray(String[]::new));
        } catch (ParameterException e) {
            throw new CliException(ExitCodes.BAD_INPUT, where + ": " + e.getMessage());
        }
    }

    private static Node compose(Path file) {
        try {
            if (Files.size(file) > FILE_BYTES_MAX) {
                throw bad(file, 1, "larger than " + FILE_BYTES_MAX + " bytes (FILE_BYTES_MAX)");
            }
            LoadSettings settings =
                    LoadSettings.builder().setLabel(file.toString()).build();
            try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                return new Compose(settings)
                        .composeReader(in)
                        .orElseThrow(() -> bad(file, 1, "empty: give at least one option"));
            }
        } catch (IOException e) {
            throw new CliException(ExitCodes.BAD_INPUT, "config " + file + ": cannot read it: " + e.getMessage());
        } catch (YamlEngineException e) {
            throw new CliException(
                    ExitCodes.BAD_INPUT,
                    "config " + file + ": not YAML: "
                            + String.valueOf(e.getMessage()).replace('\n', ' '));
        }
    }

    private static Map<String, String> mapping(Path file, String key, Node node) {
        if (!(node instanceof MappingNode m)) {
            throw bad(file, line(node), key + ": a mapping was expected");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (NodeTuple t : m.getValue()) {
            String k = scalar(file, t.getKeyNode(), key + " key");
            if (out.put(k, scalar(file, t.getValueNode(), key + "." + k)) != null) {
                throw bad(file, line(t.getKeyNode()), key + "." + k + ": given twice");
            }
        }
        return out;
    }

    private static List<String> items(Path file, String key, Node node) {
        if (node instanceof ScalarNode) {
            return List.of(scalar(file, node, key));
        }
        if (!(node instanceof SequenceNode list)) {
            throw bad(file, line(node), key + ": a value or a list of values was expected");
        }
        List<String> out = new ArrayList<>();
        for (Node item : list.getValue()) {
            out.add(scalar(file, item, key));
        }
        return out;
    }

    private static String scalar(Path file, Node node, String what) {
        if (!(node instanceof ScalarNode s)) {
            throw bad(file, line(node), what + ": a single value was expected");
        }
        return s.getValue();
    }

    private static int line(Node node) {
        return node.getStartMark().map(m -> m.getLine() + 1).orElse(1);
    }

    private static String keys(CommandSpec spec) {
        TreeSet<String> keys = new TreeSet<>(List.of(MEMBERS, LIMITS));
        for (OptionSpec o : spec.options()) {
            String key = o.longestName().substring(2);
            if (!NOT_IN_FILE.contains(key) && !"limit".equals(key)) {
                keys.add(key);
            }
        }
        return String.join(", ", keys);
    }

    private static CliException bad(Path file, int line, String message) {
        return new CliException(ExitCodes.BAD_INPUT, "config " + file + " line " + line + ": " + message);
    }
}
