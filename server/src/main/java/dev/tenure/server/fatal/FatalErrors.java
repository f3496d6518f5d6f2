package dev.tenure.server.fatal;

import dev.tenure.core.InvariantViolation;
import dev.tenure.server.storage.CorruptDataException;
import io.aeron.archive.client.ArchiveException;
import io.aeron.cluster.service.ClusterTerminationException;
import io.aeron.exceptions.AeronException;
import io.aeron.exceptions.ConductorServiceTimeoutException;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.AgentTerminationException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides which of a node's errors are fatal, and hands those to its {@link FatalHandler}.
 *
 * <p>A part that only the node's own close may stop (an Aeron agent, a gRPC event loop, the
 * gateway's channel into the log) reports its end through {@link #ended}; so does Aeron, through
 * {@link #onError}, for an error no agent survives. Whether that is fatal depends on the phase:
 * <ul>
 *   <li>starting: the first end is kept and {@link #serving()} throws it, so the start fails with
 *       one line and exit 1 instead of printing "serving" over a dead part;
 *   <li>serving: fatal at once;
 *   <li>a corrupt data file ({@link FatalCause#CORRUPT_DATA}) is fatal at once while starting too:
 *       the start would otherwise wait for a replay that cannot finish; so are limits that differ
 *       from the cluster's ({@link FatalCause#LIMITS_DIFFER}), which need the operator;
 *   <li>stopping ({@link #stopping()}, first thing in the node's close): every part is meant to end.
 * </ul>
 */
public final class FatalErrors implements ErrorHandler {
    private static final Logger LOG = LoggerFactory.getLogger(FatalErrors.class);

    private enum Phase {
        STARTING,
        SERVING,
        STOPPING
    }

    /** Aeron's replay errors (after its "ERROR - ") that mean a recording holds bytes the archive did not write. */
    private static final List<String> DAMAGED_RECORDING =
            List.of("CRC checksum mismatch", "unexpected end of recording");

    private final FatalHandler fatal;
    private final @Nullable Path archiveDir; // null: unknown (tests)
    private Phase phase = Phase.STARTING; // guarded by this
    private @Nullable String endedWhileStarting; // guarded by this
    private volatile @Nullable String paused; // the service timeout Aeron reported, if it did
    private volatile @Nullable Path dataDir; // whose file system's free space explains a failure, once known
    private volatile long floorBytes;

    public FatalErrors(FatalHandler fatal) {
        this(fatal, null);
    }

    /** As above, for a node whose archive (named in the line of a damaged recording) is {@code archiveDir}. */
    public FatalErrors(FatalHandler fatal, @Nullable Path archiveDir) {
        this.fatal = fatal;
        this.archiveDir = archiveDir;
    }

    /**
     * From now on a part that fails while {@code dataDir}'s file system has no more than {@code
     * floorBytes} free is reported as {@link FatalCause#DISK_FULL}: the log could not be written.
     */
    public void watchDisk(Path dataDir, long floorBytes) {
        this.floorBytes = floorBytes;
        this.dataDir = dataDir.toAbsolutePath().normalize();
    }

    /** The node has started every part; throws if one of them ended meanwhile. */
    public synchronized void serving() {
        if (endedWhileStarting != null) {
            throw new IllegalStateException(endedWhileStarting);
        }
        phase = Phase.SERVING;
    }

    /** The node's own close begins: its parts end from now on because they are told to. */
    public synchronized void stopping() {
        phase = Phase.STOPPING;
    }

    /** A part of the node ended, or can no longer do its work; {@code what} says which and why. */
    public void ended(FatalCause cause, String what) {
        synchronized (this) {
            if (phase == Phase.STOPPING) {
                return;
            }
            if (phase == Phase.STARTING && cause != FatalCause.CORRUPT_DATA && cause != FatalCause.LIMITS_DIFFER) {
                if (endedWhileStarting == null) {
                    endedWhileStarting = cause.meaning() + " while starting: " + what;
                }
                return;
            }
        }
        fatal.fatal(cause, what);
    }

    /**
     * {@code task}, reporting its end as {@code cause}: run it as the whole body of a thread that
     * must live as long as the node (an event loop, an agent's duty cycle).
     */
    public Runnable watched(FatalCause cause, Runnable task) {
        return () -> {
            Throwable failure = null;
            try {
                task.run();
            } catch (Throwable t) {
                failure = t;
                throw t;
            } finally {
                String thread = Thread.currentThread().getName();
                ended(
                        FatalCause.of(failure, cause),
                        failure == null ? "thread " + thread + " ended" : "thread " + thread + " ended: " + failure);
            }
        };
    }

    /**
     * Aeron's error handler for every part of the member. What Aeron itself calls a warning ({@link
     * AeronException.Category#WARN}) is logged as one, on one line. Most errors are Aeron's to
     * recover from (a peer unreachable, a timed-out request) and are only logged; these are not:
     * <ul>
     *   <li>an {@link Error}: Aeron rethrows it, ending the agent's thread;
     *   <li>an agent's termination: the consensus module or service has stopped, asked to
     *       (ClusterTool shutdown or abort) or not, or another agent did, and nothing restarts it
     *       in this process;
     *   <li>an {@link InvariantViolation}: the state machine is wrong, and an invariant failure must
     *       stop the replica rather than answer from that state;
     *   <li>a damaged data file: a snapshot that does not restore ({@link CorruptDataException}), or a
     *       recording whose replay (to this member, or to a peer catching up or copying) failed its
     *       frame checksum: such bytes must reach no state machine, and this member's disk can no
     *       longer be trusted to recover from.
     * </ul>
     */
    @Override
    public void onError(Throwable error) {
        String thread = Thread.currentThread().getName();
        String damage = damage(error);
        if (damage != null) {
            logged(error);
            ended(FatalCause.CORRUPT_DATA, damage);
            return;
        }
        if (error instanceof AeronException aeron && aeron.category() == AeronException.Category.WARN) {
            // Aeron's own severity: a warning is an event it recovered from (a quorum position
            // that went backwards after a restart, a peer's late message), with no stack worth
            // printing; logged as an error it reads as a failure on a healthy node.
            LOG.warn("tenure: cluster warning: " + withoutCategory(aeron));
            return;
        }
        if (error instanceof ClusterTerminationException terminated) {
            ended(
                    FatalCause.MEMBER_STOPPED,
                    "the cluster terminated on thread " + thread
                            + (terminated.isExpected()
                                    ? ", as asked (ClusterTool shutdown or abort)"
                                    : ", not asked to: see the cluster errors before this line"));
            return;
        }
        if (error instanceof ConductorServiceTimeoutException timeout) {
            // The process did not run for longer than Aeron's service timeout (a SIGSTOP, a long
            // GC pause, a frozen VM): Aeron closes its clients, and the agents stop next. Their
            // end is what is fatal; this says why, in the line that reports it.
            paused = timeout.getMessage();
        }
        if (error instanceof AgentTerminationException) {
            String why = paused;
            ended(
                    FatalCause.MEMBER_STOPPED,
                    "Aeron agent on thread " + thread + " stopped: " + error
                            + (why == null
                                    ? ""
                                    : ", after the process was paused past Aeron's service timeout (" + why
                                            + "); a restart recovers it from its data and its peers"));
            return;
        }
        FatalCause cause = FatalCause.of(error, FatalCause.MEMBER_STOPPED);
        if (cause != FatalCause.OUT_OF_MEMORY) {
            // The stack says where; printing it needs memory an out-of-memory error may not leave.
            logged(error);
        }
        if (error instanceof Error || error instanceof InvariantViolation) {
            String full = cause == FatalCause.OUT_OF_MEMORY ? null : diskFull();
            ended(
                    full == null ? cause : FatalCause.DISK_FULL,
                    "Aeron agent on thread " + thread + " failed: " + error + (full == null ? "" : "; " + full));
        }
    }

    /** Aeron's message without the category it prefixes ("WARN - "), which the line already says. */
    private static String withoutCategory(AeronException warning) {
        String message = String.valueOf(warning.getMessage());
        String prefix = warning.category().name() + " - ";
        return message.startsWith(prefix) ? message.substring(prefix.length()) : message;
    }

    /** Why the data directory's file system explains a failure, or null if it has room (or cannot say). */
    private @Nullable String diskFull() {
        Path dir = dataDir;
        if (dir == null) {
            return null;
        }
        try {
            FileStore store = Files.getFileStore(dir);
            long usable = store.getUsableSpace();
            if (usable > floorBytes) {
                return null;
            }
            return "the data directory " + dir + " has " + usable + " bytes free on its file system (" + store.name()
                    + "), no more than the " + floorBytes + " the log needs: free space, then restart";
        } catch (IOException e) {
            return null;
        }
    }

    /** What {@code error} says about a damaged data file, or null if it is about something else. */
    private @Nullable String damage(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof CorruptDataException corrupt) {
                return corrupt.getMessage();
            }
            if (t instanceof ArchiveException && t.getMessage() != null) {
                String message = t.getMessage();
                for (String kind : DAMAGED_RECORDING) {
                    if (message.contains(kind)) {
                        return (archiveDir == null ? "the archive" : archiveDir.toString()) + ": a replay failed: "
                                + message + "; see docs/cluster.md#a-corrupt-or-unreadable-data-file";
                    }
                }
            }
        }
        return null;
    }

    /**
     * Logs an Aeron error and nothing more: for agents the node starts and stops on its own while
     * it starts (those that copy a snapshot from a peer), whose end is not the member's.
     */
    public void logged(Throwable error) {
        LOG.error("tenure: cluster error: " + error, error);
    }
}
