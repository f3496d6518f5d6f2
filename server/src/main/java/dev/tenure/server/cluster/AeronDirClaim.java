package dev.tenure.server.cluster;

import dev.tenure.server.storage.OwnerOnlyFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A node's claim on its Aeron directory: an operating-system file lock on {@value #FILE} in it,
 * taken before the media driver starts and held for the life of the process, so that the kernel
 * ends it when the process ends, however it ends. {@link AeronDirSweep} removes a directory only
 * while it holds that lock itself: a node restarting on the same directory, whose driver has not
 * yet rewritten the dead driver's CnC file, is never swept from under it.
 *
 * <p>The sweep deletes the lock file with the directory, so a starting node that waited on the
 * lock of a directory being removed finds its file gone once it has the lock, and claims again.
 * File locks belong to the process, and closing any channel on the file would release this
 * process's lock on it, so directories claimed in this process are kept in {@link #HELD} and the
 * sweep never opens their lock file.
 */
final class AeronDirClaim implements AutoCloseable {

    /** The lock file in a node's Aeron directory, beside the driver's own directory. */
    static final String FILE = "claim";

    /** Every directory this process claims: the sweep's own process must not touch them. */
    private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

    /** Claims retried when a sweep removed the directory while this node waited on it. */
    private static final int ATTEMPTS = 5;

    private final Path dir;
    private final FileChannel channel;

    private AeronDirClaim(Path dir, FileChannel channel) {
        this.dir = dir;
        this.channel = channel;
    }

    /**
     * Makes {@code dir} (owner-only) and claims it, waiting for a sweep that holds its lock to
     * finish.
     */
    static AeronDirClaim take(Path dir) {
        Path key = dir.toAbsolutePath().normalize();
        // Marked before the lock is taken: a sweep in this process that opened and closed the file
        // meanwhile would end this process's lock on it.
        HELD.add(key);
        try {
            return take(key, key.resolve(FILE));
        } catch (RuntimeException e) {
            HELD.remove(key);
            throw e;
        }
    }

    private static AeronDirClaim take(Path key, Path file) {
        IOException last = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            try {
                OwnerOnlyFiles.directory(key);
                FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                try {
                    channel.lock();
                    if (Files.exists(file)) {
                        return new AeronDirClaim(key, channel);
                    }
                } catch (IOException | RuntimeException e) {
                    channel.close();
                    throw e;
                }
                channel.close(); // a sweep removed the directory while this node waited on it
            } catch (NoSuchFileException e) {
                last = e; // the directory went between its making and the file's: claim again
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "the media driver's directory " + key + " cannot be claimed: " + e.getMessage(), e);
            }
        }
        throw new UncheckedIOException(
                "the media driver's directory " + key + " was removed under this node " + ATTEMPTS + " times",
                last == null ? new IOException("removed") : last);
    }

    /**
     * Runs {@code removal} on {@code dir} if no process claims it, holding the claim meanwhile;
     * returns whether it ran. A directory without a lock file (one a node is still making) gets
     * one, which that node then locks in turn.
     */
    static boolean ifUnclaimed(Path dir, Removal removal) {
        Path key = dir.toAbsolutePath().normalize();
        if (HELD.contains(key)) {
            return false;
        }
        try (FileChannel channel =
                FileChannel.open(key.resolve(FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                return false; // claimed in this process, by a node just starting
            }
            if (lock == null) {
                return false;
            }
            return removal.run(key);
        } catch (IOException e) {
            return false; // gone, or not ours to open: left as it is
        }
    }

    /** What the sweep does with a directory it holds the claim on. */
    interface Removal {
        boolean run(Path dir);
    }

    /**
     * Ends the claim, removing the lock file and the directory (if the driver left it empty) first,
     * so that no sweep can see the directory unclaimed while it still holds anything.
     */
    @Override
    public void close() {
        try {
            Files.deleteIfExists(dir.resolve(FILE));
            Files.deleteIfExists(dir);
        } catch (IOException notEmptyOrGone) {
            // Left for the next start of this node, which reuses it, or for a sweep.
        } finally {
            HELD.remove(dir);
            try {
                channel.close();
            } catch (IOException e) {
                // The lock ends with the process at the latest.
            }
        }
    }
}
