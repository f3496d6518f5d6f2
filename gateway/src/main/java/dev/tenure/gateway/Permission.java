package dev.tenure.gateway;

import java.util.Locale;

/**
 * What an ACL grants a principal on the names under a prefix. Named for what a client does, not
 * for a request type, so that a new primitive (a semaphore, an election) reuses them: taking a
 * permit or campaigning is {@link #ACQUIRE}, observing is {@link #READ}.
 */
public enum Permission {
    /** Acquire, renew and release one's own leases on locks under the prefix. */
    ACQUIRE,
    /** Lock status and KV reads. */
    READ,
    /** KV puts and deletes, and checkpoints. */
    WRITE,
    /** Forced release of another session's lease, and cluster operations. */
    ADMIN,
    /** The node's status and metrics (the admin port's /status and /metrics, and ServerStatus). */
    MONITOR;

    /** As the ACL file spells it: lower case. */
    public String spelling() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The permission an ACL file names {@code word}; throws naming the ones there are. */
    public static Permission parse(String word) {
        for (Permission p : values()) {
            if (p.spelling().equals(word)) {
                return p;
            }
        }
        throw new IllegalArgumentException(
                "unknown permission '" + word + "' (known: acquire, read, write, admin, monitor)");
    }
}
