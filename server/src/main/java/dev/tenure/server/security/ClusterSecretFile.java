package dev.tenure.server.security;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Reads the cluster secret from the file given with {@code --cluster-secret-file}: its bytes as
 * they are, less one trailing newline (so {@code echo} or an editor may have written it). A file
 * that cannot serve as a secret is refused with one line that names it, before the node starts
 * anything: a node that came up without the secret its peers expect would neither reach their
 * log nor keep strangers out of its own.
 */
public final class ClusterSecretFile {

    /**
     * More than any key needs; a larger file is the wrong file (and a device such as
     * {@code /dev/urandom} given by mistake is read this far, not forever).
     */
    public static final int BYTES_MAX = 4096;

    private static final Set<PosixFilePermission> READABLE_BY_OTHERS =
            Set.of(PosixFilePermission.GROUP_READ, PosixFilePermission.OTHERS_READ);

    private ClusterSecretFile() {}

    /**
     * The secret in {@code file}. Throws {@link IllegalArgumentException} with a one-line message
     * naming the file if it is missing, unreadable, empty, shorter than {@link
     * ClusterSecret#BYTES_MIN} or longer than {@link #BYTES_MAX} bytes. A file that the group or
     * others may read is used, with a line to {@code warnings} (as ssh says of a private key).
     */
    public static ClusterSecret read(Path file, Consumer<String> warnings) {
        // Room for the largest secret, its newline ("\r\n") and one byte more to tell a larger file.
        byte[] read = readAtMost(file, BYTES_MAX + 3);
        byte[] bytes = read.length > BYTES_MAX + 2 ? read : trimNewline(read);
        if (bytes.length == 0) {
            throw refused(
                    file,
                    "is empty: write at least " + ClusterSecret.BYTES_MIN
                            + " random bytes to it, e.g. head -c 32 /dev/urandom > " + file);
        }
        if (bytes.length < ClusterSecret.BYTES_MIN) {
            throw refused(
                    file,
                    "holds " + bytes.length + " bytes, fewer than the " + ClusterSecret.BYTES_MIN
                            + " a secret needs: e.g. head -c 32 /dev/urandom > " + file);
        }
        if (bytes.length > BYTES_MAX) {
            throw refused(file, "is larger than " + BYTES_MAX + " bytes: not a secret file");
        }
        warnIfReadableByOthers(file, warnings);
        return new ClusterSecret(bytes);
    }

    private static byte[] readAtMost(Path file, int limit) {
        if (Files.isDirectory(file)) {
            throw refused(file, "is a directory, not a file");
        }
        try (InputStream in = Files.newInputStream(file)) {
            return in.readNBytes(limit);
        } catch (NoSuchFileException e) {
            throw refused(file, "does not exist");
        } catch (AccessDeniedException e) {
            throw refused(file, "cannot be read: permission denied");
        } catch (IOException e) {
            throw refused(file, "cannot be read: " + e.getMessage());
        }
    }

    /** Drops one trailing "\n" or "\r\n": every member reads the same file the same way. */
    private static byte[] trimNewline(byte[] bytes) {
        int end = bytes.length;
        if (end > 0 && bytes[end - 1] == '\n') {
            end--;
            if (end > 0 && bytes[end - 1] == '\r') {
                end--;
            }
        }
        return end == bytes.length ? bytes : Arrays.copyOf(bytes, end);
    }

    private static void warnIfReadableByOthers(Path file, Consumer<String> warnings) {
        Set<PosixFilePermission> permissions;
        try {
            permissions = Files.getPosixFilePermissions(file);
        } catch (IOException | UnsupportedOperationException e) {
            return; // not a POSIX file system: nothing to say
        }
        if (permissions.stream().anyMatch(READABLE_BY_OTHERS::contains)) {
            warnings.accept("warning: cluster secret file " + file + " can be read by group or others ("
                    + PosixFilePermissions.toString(permissions) + "); chmod 600 " + file);
        }
    }

    private static IllegalArgumentException refused(Path file, String why) {
        return new IllegalArgumentException("cluster secret file " + file + " " + why);
    }
}
