package dev.tenure.server.security;

import dev.tenure.gateway.Acl;
import dev.tenure.gateway.Permission;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

/**
 * Reads an ACL file:
 *
 * <pre>
 * principals:
 *   orders-worker:
 *     - prefix: "orders/"
 *       allow: [acquire, read, write]
 * quotas:                       # optional
 *   orders-worker:
 *     kvBytesPerPrincipalMax: 64MiB
 *     leasesPerPrincipalMax: 100
 * </pre>
 *
 * <p>{@code quotas} gives a principal of {@code principals} its own per-principal limits (the
 * names refusals give; a count, or a size with KiB, MiB or GiB); the others keep the node's.
 * Every mistake is refused with one message that names the file and the place (an unknown key or
 * permission, a prefix that is not a string, an empty list), never half-read: a node either runs
 * with the whole file or keeps what it had.
 */
public final class AclFile {
    /** A file larger than this is not an ACL: refused before it is parsed. */
    static final long FILE_BYTES_MAX = 1 << 20;

    private AclFile() {}

    /** Thrown with a message that names the file and what is wrong in it. */
    public static final class BadAclException extends Exception {
        BadAclException(String message) {
            super(message);
        }
    }

    public static Acl read(Path file) throws BadAclException {
        String text;
        try {
            if (Files.size(file) > FILE_BYTES_MAX) {
                throw new BadAclException("acl " + file + ": larger than " + FILE_BYTES_MAX + " bytes");
            }
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new BadAclException("acl " + file + ": cannot read it (" + e + ")");
        }
        return parse(file.toString(), text);
    }

    static Acl parse(String source, String text) throws BadAclException {
        Object doc;
        try {
            // Duplicate keys are an error, not a silent override of the first grant.
            doc = new Load(LoadSettings.builder().setAllowDuplicateKeys(false).build()).loadFromString(text);
        } catch (YamlEngineException e) {
            throw new BadAclException("acl " + source + ": not valid YAML: "
                    + String.valueOf(e.getMessage()).replace('\n', ' '));
        }
        Map<?, ?> top = map(source, "the file", doc);
        Object quotaSection = top.remove("quotas");
        only(source, "the file", top, List.of("principals"));
        Map<?, ?> principals = map(source, "principals", top.get("principals"));
        Map<String, List<Acl.Grant>> grants = new TreeMap<>();
        for (Map.Entry<?, ?> e : principals.entrySet()) {
            if (!(e.getKey() instanceof String principal) || principal.isEmpty()) {
                throw bad(source, "principals", "each principal must be a non-empty name, found " + e.getKey());
            }
            grants.put(principal, grants(source, "principals." + principal, e.getValue()));
        }
        return Acl.of(grants, quotaSection == null ? new TreeMap<>() : AclQuotas.parse(source, quotaSection, grants));
    }

    private static List<Acl.Grant> grants(String source, String where, Object value) throws BadAclException {
        if (!(value instanceof List<?> list) || list.isEmpty()) {
            throw bad(source, where, "must be a non-empty list of {prefix, allow}");
        }
        List<Acl.Grant> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String at = where + "[" + i + "]";
            Map<?, ?> entry = map(source, at, list.get(i));
            only(source, at, entry, List.of("prefix", "allow"));
            if (!(entry.get("prefix") instanceof String prefix)) {
                throw bad(source, at + ".prefix", "must be a string (\"\" for every name)");
            }
            if (!(entry.get("allow") instanceof List<?> words) || words.isEmpty()) {
                throw bad(source, at + ".allow", "must be a non-empty list of permissions");
            }
            EnumSet<Permission> allow = EnumSet.noneOf(Permission.class);
            for (Object word : words) {
                try {
                    allow.add(Permission.parse(String.valueOf(word)));
                } catch (IllegalArgumentException unknown) {
                    throw bad(source, at + ".allow", String.valueOf(unknown.getMessage()));
                }
            }
            out.add(new Acl.Grant(prefix, allow));
        }
        return out;
    }

    static Map<?, ?> map(String source, String where, @Nullable Object value) throws BadAclException {
        if (!(value instanceof Map<?, ?> m)) {
            throw bad(source, where, "must be a mapping");
        }
        return new LinkedHashMap<>(m);
    }

    private static void only(String source, String where, Map<?, ?> m, List<String> keys) throws BadAclException {
        for (Object k : m.keySet()) {
            if (!keys.contains(String.valueOf(k))) {
                throw bad(source, where, "unknown key '" + k + "' (known: " + String.join(", ", keys) + ")");
            }
        }
        for (String k : keys) {
            if (!m.containsKey(k)) {
                throw bad(source, where, "missing '" + k + "'");
            }
        }
    }

    static BadAclException bad(String source, String where, String what) {
        return new BadAclException("acl " + source + ": " + where + ": " + what);
    }
}
