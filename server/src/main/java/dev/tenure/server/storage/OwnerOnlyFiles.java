package dev.tenure.server.storage;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * A node's files are its user's alone: the log and snapshots hold every key and value, and the
 * media driver's shared memory takes log commands. The process's umask decides the mode of what
 * Aeron creates, and Java cannot set a umask, so:
 *
 * <ul>
 *   <li>every directory the node writes in (the data directory, its {@code archive} and
 *       {@code cluster}, the media driver's directory and the one above it) is made 0700 before
 *       anything is written in it, with no moment at which it is more open. A file in it is then
 *       out of any other user's reach from the moment it exists, whatever its own mode;
 *   <li>every file in them is made 0600, and every directory Aeron makes in them 0700, at start
 *       and then once a second ({@link #tighten}), so the modes say what the directories already
 *       enforce, also for whoever copies the files elsewhere.
 * </ul>
 *
 * A file system without POSIX permissions (not a node's normal home) is left as it is.
 */
public final class OwnerOnlyFiles {
    static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
    static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

    private OwnerOnlyFiles() {}

    /**
     * Makes {@code dir} (and its missing parents) 0700, or tightens it to 0700 if it exists. Made
     * with the mode as it is created ({@code mkdir(dir, 0700)}), so the umask can only take bits
     * away; set again after, in case it took the owner's.
     *
     * @throws IOException it cannot be made, or it exists and belongs to another user (who could
     *     read what the node writes in it, or swap it)
     */
    public static void directory(Path dir) throws IOException {
        if (!posix(dir.toAbsolutePath().getRoot())) {
            Files.createDirectories(dir);
            return;
        }
        Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(DIRECTORY));
        String owner = Files.getOwner(dir).getName();
        String self = System.getProperty("user.name");
        if (!owner.equals(self)) {
            throw new IOException("directory " + dir + " belongs to user " + owner + ", not to " + self
                    + ": remove it, or run as its owner");
        }
        Files.setPosixFilePermissions(dir, DIRECTORY);
    }

    /**
     * Makes every directory under {@code root} (itself included) 0700 and every regular file 0600,
     * without following links; returns how many it changed. Files that vanish meanwhile (Aeron
     * removes some) are passed over.
     */
    public static int tighten(Path root) throws IOException {
        if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS) || !posix(root)) {
            return 0;
        }
        int[] changed = {0};
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                changed[0] += set(dir, DIRECTORY);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                if (attrs.isRegularFile()) {
                    changed[0] += set(file, FILE);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }
        });
        return changed[0];
    }

    private static int set(Path path, Set<PosixFilePermission> mode) throws IOException {
        try {
            PosixFileAttributeView view =
                    Files.getFileAttributeView(path, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
            PosixFileAttributes now = view.readAttributes();
            if (now.permissions().equals(mode)) {
                return 0;
            }
            view.setPermissions(mode);
            return 1;
        } catch (NoSuchFileException gone) {
            return 0;
        }
    }

    private static boolean posix(Path path) throws IOException {
        Path where = path == null ? FileSystems.getDefault().getPath("/") : path;
        return Files.getFileStore(where).supportsFileAttributeView(PosixFileAttributeView.class);
    }
}
