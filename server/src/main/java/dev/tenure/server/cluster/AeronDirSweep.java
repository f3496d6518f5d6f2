package dev.tenure.server.cluster;

import io.aeron.CncFileDescriptor;
import io.aeron.CommonContext;
import java.io.File;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Removes the Aeron directories ({@code tenure-*}, about 83 MB each in {@code /dev/shm}) that
 * nodes killed with {@code kill -9} left behind: only a node that stops cleanly removes its own,
 * and a restart on the same data directory reuses it, but a node never started again leaves it
 * for good (a day of test runs filled 22 GB of shared memory).
 *
 * <p>A directory is removed only while no process claims it ({@link AeronDirClaim}: a node holds
 * an operating-system lock in it for its life, from before its driver starts) and its media
 * driver is certainly gone. The claim alone decides between a dead node and one restarting on the
 * same directory, whose CnC file still names the dead driver until its own driver rewrites it.
 * The driver's signs are checked as well, for a node of an earlier release that made no claim:
 * the process whose id its CnC file records no longer exists, and the driver's heartbeat in that file is older than
 * Aeron's driver timeout. Either alone would do most of the time, but a stopped process
 * ({@code SIGSTOP}) has a stale heartbeat and is alive, and a process in another pid namespace
 * is invisible here while its heartbeat is fresh. A directory whose CnC file is missing or not
 * yet written (a driver starting) is kept until it is older than the driver timeout. Only the
 * directories of this process's user are touched: another user's are theirs to clean.
 */
final class AeronDirSweep {

    /** The prefix every node's Aeron directory has (see {@link AeronContexts#aeronDirFor}). */
    static final String PREFIX = "tenure-";

    /** The media driver's own directory inside a node's (see {@link AeronContexts#aeronDirFor}). */
    static final String DRIVER = "driver";

    private AeronDirSweep() {}

    /** What was removed: each directory and the bytes it held. */
    record Removed(Path dir, long bytes) {}

    /**
     * Removes the dead nodes' directories under {@code parent}, never {@code own} (this node's,
     * which its driver clears on start); returns what it removed. A directory it cannot read or
     * remove is left as it is.
     */
    static List<Removed> sweep(Path parent, Path own) {
        List<Removed> removed = new ArrayList<>();
        String user = System.getProperty("user.name");
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(parent, PREFIX + "*")) {
            for (Path dir : dirs) {
                if (dir.equals(own) || !Files.isDirectory(dir) || !ownedBy(dir, user)) {
                    continue;
                }
                AeronDirClaim.ifUnclaimed(dir, unclaimed -> {
                    if (!dead(unclaimed)) {
                        return false;
                    }
                    long bytes = bytes(unclaimed);
                    if (!delete(unclaimed)) {
                        return false;
                    }
                    removed.add(new Removed(dir, bytes));
                    return true;
                });
            }
        } catch (IOException e) {
            // Nothing to sweep where the directory cannot be listed; the node starts all the same.
        }
        return removed;
    }

    /**
     * Whether the driver that used {@code dir} is gone (see the class comment). A node's directory
     * holds its driver's in {@value #DRIVER} (the node's own is owner-only, the driver's is made
     * by Aeron under the umask); one left by an earlier release is the driver's itself.
     */
    static boolean dead(Path dir) {
        Path driver = dir.resolve(DRIVER);
        Path cnc = (Files.isDirectory(driver) ? driver : dir).resolve(CncFileDescriptor.CNC_FILE);
        long timeoutMs = CommonContext.DRIVER_TIMEOUT_MS;
        try (FileChannel channel = FileChannel.open(cnc, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size < CncFileDescriptor.END_OF_METADATA_OFFSET) {
                return olderThan(dir, timeoutMs);
            }
            MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
            try {
                return dead(dir, mapped, timeoutMs);
            } finally {
                BufferUtil.free(mapped);
            }
        } catch (java.nio.file.NoSuchFileException e) {
            return olderThan(dir, timeoutMs);
        } catch (IOException | RuntimeException e) {
            return false; // unreadable: not ours to judge
        }
    }

    private static boolean dead(Path dir, MappedByteBuffer cnc, long timeoutMs) throws IOException {
        UnsafeBuffer meta = CncFileDescriptor.createMetaDataBuffer(cnc);
        int version = meta.getIntVolatile(CncFileDescriptor.cncVersionOffset(0));
        long pid = CncFileDescriptor.pid(meta);
        if (pid > 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            // Alive, or running (maybe stopped); or the id was reused since: then kept until that ends.
            return false;
        }
        if (version == 0) {
            return olderThan(dir, timeoutMs); // being written by a driver that is starting
        }
        return !CommonContext.isDriverActive(timeoutMs, s -> {}, cnc);
    }

    private static boolean olderThan(Path dir, long ms) {
        try {
            FileTime modified = Files.getLastModifiedTime(dir);
            return System.currentTimeMillis() - modified.toMillis() > ms;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean ownedBy(Path dir, String user) {
        try {
            return Files.getOwner(dir).getName().equals(user);
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    private static long bytes(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.map(Path::toFile)
                    .filter(File::isFile)
                    .mapToLong(File::length)
                    .sum();
        } catch (IOException | java.io.UncheckedIOException e) {
            return 0;
        }
    }

    private static boolean delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
            return true;
        } catch (IOException | java.io.UncheckedIOException e) {
            return false;
        }
    }
}
