package dev.tenure.server.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Exclusive ownership of a data directory for the life of this process.
 *
 * <p>Aeron refuses to start while a mark file looks active, and after {@code kill -9} it keeps
 * looking active until its heartbeat ages out (seconds). An OS file lock tells the truth at once:
 * the kernel drops it when its process dies. So when we hold the lock, every mark file in the
 * directory belongs to a dead process and is removed; the log, catalog and recordings (the data)
 * are never touched. When we cannot get the lock, another live node uses this directory and we
 * refuse to start.
 *
 * <p>While held, the lock file names the node's Aeron directory in shared memory ({@value
 * #AERON_DIR_LINE} and its path, one line): a harness that deletes a killed node's data
 * directory deletes that directory too, which nothing else would (see {@code AeronDirSweep}).
 */
public final class DataDirLock implements AutoCloseable {

    /** Aeron's per-process liveness files; they hold no committed data. */
    private static final List<String> MARK_FILES =
            List.of("archive/archive-mark.dat", "cluster/cluster-mark.dat", "cluster/cluster-mark-service-0.dat");

    /** How the lock file's line that names the node's Aeron directory begins. */
    static final String AERON_DIR_LINE = "aeron-dir ";

    private final FileChannel channel;
    private final FileLock lock;

    private DataDirLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    public static DataDirLock acquire(Path dataDir) throws IOException {
        return acquire(dataDir, null);
    }

    /** As above; with {@code aeronDir} not null, the lock file names it. */
    public static DataDirLock acquire(Path dataDir, @Nullable String aeronDir) throws IOException {
        Path where = dataDir.toAbsolutePath().normalize();
        // Said in the operator's terms: the JDK's own exceptions here carry only the path.
        if (Files.exists(where) && !Files.isDirectory(where)) {
            throw new IOException("data directory " + where + " is a file, not a directory");
        }
        if (Files.isDirectory(where) && Files.getFileStore(where).isReadOnly()) {
            throw new IOException("data directory " + where + " is on a read-only file system");
        }
        try {
            // Owner-only before anything is written in it (see OwnerOnlyFiles): the log holds
            // every key and value.
            OwnerOnlyFiles.directory(where);
        } catch (IOException e) {
            throw new IOException("data directory " + where + " cannot be created: " + FileErrors.reason(e, where), e);
        }
        if (!Files.isWritable(where)) {
            // Root may write anywhere its permissions say no, but not on a read-only mount: say which.
            throw new IOException("data directory " + where
                    + (Files.getFileStore(where).isReadOnly()
                            ? " is on a read-only file system"
                            : " is not writable by this process"));
        }
        FileChannel channel =
                FileChannel.open(dataDir.resolve("tenure.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = channel.tryLock();
        if (lock == null) {
            channel.close();
            throw new IOException("data directory " + dataDir.toAbsolutePath() + " is in use by another running node");
        }
        if (aeronDir != null) {
            channel.truncate(0);
            channel.write(ByteBuffer.wrap((AERON_DIR_LINE + aeronDir + "\n").getBytes(StandardCharsets.UTF_8)), 0);
        }
        for (String mark : MARK_FILES) {
            Path file = dataDir.resolve(mark);
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                lock.release();
                channel.close();
                throw new IOException(
                        "data directory " + where + ": " + file + " cannot be removed: " + FileErrors.reason(e, file),
                        e);
            }
        }
        return new DataDirLock(channel, lock);
    }

    /**
     * Makes the archive's and the consensus module's directories owner-only before they write
     * anything, once the node's start checks passed: a start refused earlier (no room, say)
     * leaves only the lock file.
     */
    public static void ownerOnlyAeronDirectories(Path dataDir) throws IOException {
        Path where = dataDir.toAbsolutePath().normalize();
        try {
            OwnerOnlyFiles.directory(where.resolve("archive"));
            OwnerOnlyFiles.directory(where.resolve("cluster"));
        } catch (IOException e) {
            throw new IOException("data directory " + where + " cannot be created: " + FileErrors.reason(e, where), e);
        }
    }

    @Override
    public void close() throws IOException {
        lock.release();
        channel.close();
    }
}
