package dev.tenure.lab.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.snakeyaml.engine.v2.api.Dump;
import org.snakeyaml.engine.v2.api.DumpSettings;
import org.snakeyaml.engine.v2.common.FlowStyle;

/**
 * A node's {@code tenure server --config} file, written from its options: a local cluster's
 * nodes start from the same kind of file an operator writes for a member on its own host
 * (docs/cluster.md), so the files of a local cluster are a starting point for a real one.
 */
public final class NodeConfigFile {
    private NodeConfigFile() {}

    /**
     * The file's content for {@code options} ({@code --name value}, a switch as {@code --name}
     * alone, {@code --limit NAME=VALUE} as the {@code limits} mapping), in their order.
     */
    public static String yaml(List<String> options) {
        Map<String, Object> out = new LinkedHashMap<>();
        Map<String, Object> limits = new LinkedHashMap<>();
        for (int i = 0; i < options.size(); i++) {
            String option = options.get(i);
            if (!option.startsWith("--")) {
                throw new IllegalArgumentException("not an option: " + option + " in " + options);
            }
            boolean hasValue = i + 1 < options.size() && !options.get(i + 1).startsWith("--");
            String key = option.substring(2);
            if (!hasValue) {
                out.put(key, true);
            } else if ("limit".equals(key)) {
                String[] nameValue = options.get(++i).split("=", 2);
                limits.put(nameValue[0], nameValue.length == 2 ? nameValue[1] : "");
            } else {
                out.put(key, options.get(++i));
            }
        }
        if (!limits.isEmpty()) {
            out.put("limits", limits);
        }
        DumpSettings settings =
                DumpSettings.builder().setDefaultFlowStyle(FlowStyle.BLOCK).build();
        return "# written by `tenure cluster start`: read by `tenure server --config` (docs/cluster.md)\n"
                + new Dump(settings).dumpToString(out);
    }

    static void write(Path file, List<String> options) throws IOException {
        Files.writeString(file, yaml(options), StandardCharsets.UTF_8);
    }
}
