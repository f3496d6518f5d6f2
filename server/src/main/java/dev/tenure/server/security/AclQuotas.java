package dev.tenure.server.security;

import dev.tenure.core.Limits;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The {@code quotas} section of an ACL file: per principal, its own per-principal limits by name. */
final class AclQuotas {
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(KiB|MiB|GiB)?");
    /** The names a quota may set: the per-principal limits but the longest principal name, which is the node's. */
    private static final List<String> NAMES =
            Limits.names().stream().filter(n -> n.contains("PerPrincipal")).toList();

    private AclQuotas() {}

    static SortedMap<String, SortedMap<String, Long>> parse(String source, Object section, Map<String, ?> principals)
            throws AclFile.BadAclException {
        Map<?, ?> byPrincipal = AclFile.map(source, "quotas", section);
        TreeMap<String, SortedMap<String, Long>> out = new TreeMap<>();
        for (Map.Entry<?, ?> e : byPrincipal.entrySet()) {
            String principal = String.valueOf(e.getKey());
            String where = "quotas." + principal;
            if (!principals.containsKey(principal)) {
                throw AclFile.bad(source, where, "no such principal under principals");
            }
            Map<?, ?> values = AclFile.map(source, where, e.getValue());
            TreeMap<String, Long> quota = new TreeMap<>();
            for (Map.Entry<?, ?> v : values.entrySet()) {
                String name = String.valueOf(v.getKey());
                if (!NAMES.contains(name)) {
                    throw AclFile.bad(
                            source, where, "unknown quota '" + name + "' (known: " + String.join(", ", NAMES) + ")");
                }
                quota.put(name, value(source, where + "." + name, v.getValue()));
            }
            try {
                Limits.defaults().withAll(quota);
            } catch (IllegalArgumentException range) {
                throw AclFile.bad(source, where, String.valueOf(range.getMessage()));
            }
            out.put(principal, quota);
        }
        return out;
    }

    private static long value(String source, String where, Object value) throws AclFile.BadAclException {
        Matcher m = SIZE.matcher(String.valueOf(value).trim());
        if (!m.matches()) {
            throw AclFile.bad(source, where, "must be a count or a size (e.g. 100, 64MiB), found " + value);
        }
        long unit = m.group(2) == null
                ? 1
                : switch (m.group(2)) {
                    case "KiB" -> 1L << 10;
                    case "MiB" -> 1L << 20;
                    default -> 1L << 30;
                };
        try {
            return Math.multiplyExact(Long.parseLong(m.group(1)), unit);
        } catch (ArithmeticException | NumberFormatException tooLarge) {
            throw AclFile.bad(source, where, "too large: " + value);
        }
    }
}
