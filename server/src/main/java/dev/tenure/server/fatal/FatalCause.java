package dev.tenure.server.fatal;

import org.jspecify.annotations.Nullable;

/**
 * Why a node ended itself, and the exit status that says so. A node that can no longer serve
 * must not stay up looking alive: a supervisor (systemd, a container runtime) restarts only a
 * process that ended, and the status tells the operator which part failed.
 *
 * <p>1 (did not start) and 2 (bad options) keep the meanings the {@code tenure} command gives
 * them, and 3 to 6 stay the client commands'; a stop as asked is the JVM's 143 or 130 (SIGTERM,
 * SIGINT). 15 is a full data directory.
 */
public enum FatalCause {
    /**
     * The JVM ran out of memory. The JVM's own hook ends the process with SIGUSR1, which a shell
     * and Java report as 138 (see {@link OutOfMemoryExit}); an out-of-memory error the node
     * catches itself (one the JVM does not report, such as a thread it cannot start) halts with
     * 138 too, so one cause has one status.
     */
    OUT_OF_MEMORY(138, "out of memory"),
    /**
     * The cluster member stopped: an Aeron agent (media driver, archive, consensus module,
     * clustered service) failed with an error, terminated, or its thread ended, or the state
     * machine broke an invariant.
     */
    MEMBER_STOPPED(11, "cluster member stopped"),
    /**
     * A data file the member recovers from, or serves to a peer, holds bytes it did not write
     * (a checksum that does not match, a frame cut short): the node stops rather than apply or
     * send them. The same status ends a start that finds such a file ({@code RecoveryCheck}).
     */
    CORRUPT_DATA(12, "corrupt data file"),
    /** The client endpoint stopped: a gRPC transport thread or the gateway's channel into the log ended. */
    GATEWAY_STOPPED(13, "gateway stopped"),
    /** Another thread of the node died of an exception nothing caught: a bug, state unknown. */
    THREAD_DIED(14, "thread died"),
    /**
     * A part of the member failed while the data directory's file system was out of room for the
     * log: Aeron writes the log through memory-mapped files, and a page it cannot back faults the
     * thread that touches it ({@code InternalError: a fault occurred in a recent unsafe memory
     * access}).
     */
    DISK_FULL(15, "data directory full"),
    /**
     * The node was given limits (or ACL quotas) that differ from the ones the cluster's log holds,
     * and was not asked to change them: it would decide commands under other limits than its
     * peers. Bad options, so the {@code tenure} command's 2; the line names both values.
     */
    LIMITS_DIFFER(2, "limits differ from the cluster's");

    private final int exitStatus;
    private final String meaning;

    FatalCause(int exitStatus, String meaning) {
        this.exitStatus = exitStatus;
        this.meaning = meaning;
    }

    public int exitStatus() {
        return exitStatus;
    }

    public String meaning() {
        return meaning;
    }

    /** The cause an error names by its kind, when it names one; else {@code otherwise}. */
    public static FatalCause of(@Nullable Throwable error, FatalCause otherwise) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof OutOfMemoryError) {
                return OUT_OF_MEMORY;
            }
        }
        return otherwise;
    }
}
