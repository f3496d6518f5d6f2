package dev.tenure.cli;

import dev.tenure.core.Limits;
import dev.tenure.server.config.ServerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.snakeyaml.engine.v2.api.Dump;
import org.snakeyaml.engine.v2.api.DumpSettings;
import org.snakeyaml.engine.v2.common.FlowStyle;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code tenure server --print-config}: every option's value after the file and the flags, as a
 * file {@code --config} reads back to the same configuration. Options whose default is derived
 * from others (the admin port, the bind address, the cluster ports) are printed as derived.
 */
final class EffectiveConfig {
    private EffectiveConfig() {}

    private static final List<String> NOT_PRINTED = List.of(
            "config", "print-config", "help", "version", "limit", "members", "admin-port", "bind", "cluster-port-base");

    static String yaml(CommandSpec spec, ServerConfig config) {
        Map<String, Object> out = new LinkedHashMap<>();
        boolean members = spec.findOption("--members").getValue() != null;
        for (OptionSpec o : spec.options()) {
            String key = o.longestName().substring(2);
            if (NOT_PRINTED.contains(key)) {
                continue;
            }
            Object value = value(o);
            if (value != null) {
                out.put(key, value);
            }
            if ("port".equals(key)) {
                out.put("admin-port", config.adminPort());
                out.put("bind", config.bindHost());
                if (!members) {
                    out.put("cluster-port-base", config.self().aeronPortBase());
                }
            }
        }
        if (members) {
            List<Object> list = new ArrayList<>();
            for (ServerConfig.Member m : config.members()) {
                Map<String, Object> member = new LinkedHashMap<>();
                member.put("id", m.id());
                member.put("host", m.host());
                member.put("port", m.port());
                member.put("cluster-port-base", m.aeronPortBase());
                list.add(member);
            }
            out.put(ServerConfigFile.MEMBERS, list);
        }
        Map<String, Object> limits = new LinkedHashMap<>();
        for (String name : Limits.names()) {
            limits.put(name, config.limits().get(name));
        }
        out.put(ServerConfigFile.LIMITS, limits);
        DumpSettings settings =
                DumpSettings.builder().setDefaultFlowStyle(FlowStyle.BLOCK).build();
        return "# tenure server's effective configuration: `tenure server --config FILE` reads it back\n"
                + new Dump(settings).dumpToString(out);
    }

    /** The option's value as the file writes it, or null when it has none (an unset optional). */
    private static @Nullable Object value(OptionSpec o) {
        Object v = o.getValue();
        if (v == null) {
            return null;
        }
        if (v instanceof Duration d) {
            return duration(d);
        }
        if (v instanceof Path p) {
            return p.toString();
        }
        if (v instanceof Long n && isSize(o)) {
            return size(n);
        }
        if (v instanceof Map<?, ?> map) {
            List<String> entries = new ArrayList<>();
            map.forEach((k, x) -> entries.add(k + "=" + x));
            return entries.isEmpty() ? null : entries;
        }
        if (v instanceof List<?> list) {
            List<String> entries = new ArrayList<>();
            list.forEach(x -> entries.add(String.valueOf(x)));
            return entries.isEmpty() ? null : entries;
        }
        if (v instanceof Boolean || v instanceof Number) {
            return v;
        }
        return String.valueOf(v);
    }

    private static boolean isSize(OptionSpec o) {
        for (ITypeConverter<?> c : o.converters()) {
            if (c instanceof SizeConverter) {
                return true;
            }
        }
        return false;
    }

    /** A duration as {@link DurationConverter} reads it, in the largest unit that is exact. */
    static String duration(Duration d) {
        long ms = d.toMillis();
        if (ms != 0 && ms % 3_600_000 == 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms != 0 && ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }

    /** A size as {@link SizeConverter} reads it, in the largest binary unit that is exact. */
    static String size(long bytes) {
        String[] units = {"GiB", "MiB", "KiB"};
        int[] shifts = {30, 20, 10};
        for (int i = 0; i < units.length; i++) {
            long unit = 1L << shifts[i];
            if (bytes != 0 && bytes % unit == 0) {
                return bytes / unit + units[i];
            }
        }
        return Long.toString(bytes);
    }
}
