package dev.tenure.process;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Cleaning up after a node or a run: its data directory goes, with everything in it, and so does
 * the Aeron directory in shared memory that a killed node leaves behind (about 83 MB each).
 */
public final class Dirs {
    /** The lock file a node keeps in its data directory; its line {@value #AERON_DIR_LINE} names its Aeron directory. */
    static final String LOCK_FILE = "tenure.lock";

    static final String AERON_DIR_LINE = "aeron-dir ";

    /** How deep under a directory node data directories are looked for (a cluster's are {@code DIR/node-i}). */
    private static final int NODE_DEPTH_MAX = 3;

    private Dirs() {}

    /**
     * Deletes {@code dir} and everything under it, and the Aeron directories of the stopped nodes
     * whose data directories it holds; nothing if it does not exist.
     */
    public static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        deleteAeronDirs(dir);
        delete(dir);
    }

    /**
     * Deletes the Aeron directories of the stopped nodes whose data directories are {@code dir}
     * or under it, as their lock files name them; returns those it deleted. A node that still
     * holds its lock keeps its directory: it is alive, and the directory is in use.
     */
    public static List<Path> deleteAeronDirs(Path dir) throws IOException {
        List<Path> deleted = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return deleted;
        }
        List<Path> locks;
        try (Stream<Path> files = Files.find(
                dir,
                NODE_DEPTH_MAX,
                (p, a) -> a.isRegularFile() && p.getFileName().toString().equals(LOCK_FILE))) {
            locks = files.sorted().toList();
        }
        for (Path lock : locks) {
            Path aeronDir = aeronDirOfStoppedNode(lock);
            if (aeronDir != null && Files.isDirectory(aeronDir)) {
                delete(aeronDir);
                deleted.add(aeronDir);
            }
        }
        return deleted;
    }

    /** The Aeron directory {@code lock} names, or null if it names none or its node still runs. */
    private static @Nullable Path aeronDirOfStoppedNode(Path lock) throws IOException {
        try (FileChannel channel = FileChannel.open(lock, StandardOpenOption.WRITE)) {
            FileLock held = channel.tryLock();
            if (held == null) {
                return null; // another process's live node
            }
            held.release();
        } catch (OverlappingFileLockException inThisProcess) {
            return null; // a live node in this very JVM
        }
        for (String line : Files.readAllLines(lock, StandardCharsets.UTF_8)) {
            if (line.startsWith(AERON_DIR_LINE)) {
                Path aeronDir = Path.of(line.substring(AERON_DIR_LINE.length()).trim());
                // Only what a node names its Aeron directory: never a path a damaged file made up.
                return aeronDir.getFileName() != null
                                && aeronDir.getFileName().toString().startsWith("tenure-")
                        ? aeronDir
                        : null;
            }
        }
        return null;
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
