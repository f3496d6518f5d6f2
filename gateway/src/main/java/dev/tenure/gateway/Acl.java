package dev.tenure.gateway;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Which principal may do what on which names: a list of (prefix, permissions) per principal.
 * With an ACL, whatever it does not allow is denied, a call without a principal included.
 * {@link #OPEN} is the node without one: everything is allowed, as before ACLs.
 *
 * <p>Prefixes match names byte for byte from the start: {@code "orders/"} covers {@code
 * orders/cursor} and not {@code orders-archive}; the empty prefix covers every name. A principal's
 * grants add up: a name is allowed a permission if any of the principal's prefixes that cover it
 * lists it.
 */
public final class Acl {
    /** No ACL: every call is allowed. */
    public static final Acl OPEN = new Acl(null);

    /** One entry of a principal's list. */
    public record Grant(String prefix, Set<Permission> allow) {
        public Grant {
            allow = Collections.unmodifiableSet(EnumSet.copyOf(allow));
        }

        boolean covers(String name) {
            return name.startsWith(prefix);
        }
    }

    /** Null for {@link #OPEN}. */
    private final @Nullable Map<String, List<Grant>> byPrincipal;

    /** Each named principal's own quota values, by the names refusals give; not permissions, but replicated state. */
    private final java.util.SortedMap<String, java.util.SortedMap<String, Long>> quotas;

    private Acl(
            @Nullable Map<String, List<Grant>> byPrincipal,
            java.util.SortedMap<String, java.util.SortedMap<String, Long>> quotas) {
        this.byPrincipal = byPrincipal;
        this.quotas = quotas;
    }

    private Acl(@Nullable Map<String, List<Grant>> byPrincipal) {
        this(byPrincipal, Collections.emptySortedMap());
    }

    /** An ACL granting exactly {@code grants}; a principal not in it may do nothing. */
    public static Acl of(Map<String, List<Grant>> grants) {
        return of(grants, Collections.emptySortedMap());
    }

    /**
     * As {@link #of(Map)}, with per-principal quota values (e.g. {@code kvBytesPerPrincipalMax}) for
     * some principals: the node proposes them to the cluster through the log (they decide outcomes
     * at apply, so every replica must hold the same ones); a value not given is the node's.
     */
    public static Acl of(
            Map<String, List<Grant>> grants, java.util.SortedMap<String, java.util.SortedMap<String, Long>> quotas) {
        Map<String, List<Grant>> copy = new TreeMap<>();
        grants.forEach((principal, list) -> copy.put(principal, List.copyOf(list)));
        TreeMap<String, java.util.SortedMap<String, Long>> q = new TreeMap<>();
        quotas.forEach(
                (principal, values) -> q.put(principal, Collections.unmodifiableSortedMap(new TreeMap<>(values))));
        return new Acl(Collections.unmodifiableMap(copy), Collections.unmodifiableSortedMap(q));
    }

    /** The principals' own quota values the ACL names (none for {@link #OPEN}). */
    public java.util.SortedMap<String, java.util.SortedMap<String, Long>> quotas() {
        return quotas;
    }

    public boolean open() {
        return byPrincipal == null;
    }

    /** Whether {@code principal} (empty: the call has none) may do {@code p} on {@code name}. */
    public boolean allows(Optional<String> principal, Permission p, String name) {
        if (byPrincipal == null) {
            return true;
        }
        List<Grant> grants = principal.map(byPrincipal::get).orElse(null);
        if (grants == null) {
            return false;
        }
        for (Grant g : grants) {
            if (g.allow().contains(p) && g.covers(name)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code principal} may do {@code p} on every name that starts with {@code prefix}
     * (the empty prefix: every name). Exact, not merely safe: the name {@code prefix} itself is
     * covered only by a grant whose prefix starts it, and such a grant covers every longer name
     * too; so no union of narrower grants can cover them all.
     */
    public boolean allowsPrefix(Optional<String> principal, Permission p, String prefix) {
        if (byPrincipal == null) {
            return true;
        }
        List<Grant> grants = principal.map(byPrincipal::get).orElse(null);
        if (grants == null) {
            return false;
        }
        for (Grant g : grants) {
            if (g.allow().contains(p) && prefix.startsWith(g.prefix())) {
                return true;
            }
        }
        return false;
    }

    /** Whether the principal is named in the ACL at all: who may open a session. */
    public boolean knows(Optional<String> principal) {
        return byPrincipal == null || principal.map(byPrincipal::containsKey).orElse(false);
    }

    /** Whether this ACL names {@code principal} (an open one names nobody: it needs no names). */
    public boolean names(String principal) {
        return byPrincipal != null && byPrincipal.containsKey(principal);
    }

    /** The principals this ACL names that {@code before} did not, ascending: a reload added them. */
    public List<String> namedSince(Acl before) {
        List<String> added = new ArrayList<>();
        if (byPrincipal != null) {
            for (String principal : byPrincipal.keySet()) {
                if (!before.names(principal)) {
                    added.add(principal);
                }
            }
        }
        return added;
    }

    /**
     * The principals that this ACL allows less than {@code before} did: some (prefix, permission)
     * the old one granted is not covered by the new one. Their sessions are ended on a reload, so
     * nothing they hold outlives the permission it was taken under; principals only given more keep
     * theirs.
     */
    public List<String> narrowedSince(Acl before) {
        List<String> narrowed = new ArrayList<>();
        if (before.byPrincipal == null) {
            if (byPrincipal != null) {
                narrowed.add(ANY);
            }
            return narrowed;
        }
        for (Map.Entry<String, List<Grant>> e : before.byPrincipal.entrySet()) {
            for (Grant old : e.getValue()) {
                if (!coversAll(e.getKey(), old)) {
                    narrowed.add(e.getKey());
                    break;
                }
            }
        }
        return narrowed;
    }

    /**
     * What {@link #narrowedSince} names when an ACL replaces none: every principal, and the
     * calls without one, had everything before.
     */
    public static final String ANY = "*";

    /** Whether every name the old grant covered gets each of its permissions here too. */
    private boolean coversAll(String principal, Grant old) {
        if (byPrincipal == null) {
            return true;
        }
        List<Grant> grants = byPrincipal.get(principal);
        if (grants == null) {
            return false;
        }
        for (Permission p : old.allow()) {
            boolean covered = false;
            for (Grant g : grants) {
                // A new prefix that is a prefix of the old one covers every name the old one did.
                if (g.allow().contains(p) && old.prefix().startsWith(g.prefix())) {
                    covered = true;
                    break;
                }
            }
            if (!covered) {
                return false;
            }
        }
        return true;
    }
}
