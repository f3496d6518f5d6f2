package dev.tenure.server.backup;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * A backup file: the replicated state at one committed log position, as {@code tenure backup}
 * writes it and {@code tenure restore} reads it. Big-endian:
 *
 * <pre>
 * magic i32 "TNBK", format i32 = 1,
 * logPosition i64, lastToken i64, createdAtMs i64, snapshotBytes i64,
 * snapshot (state machine snapshot format, with its own CRC32 trailer),
 * sha256 of everything before it (32 bytes)
 * </pre>
 *
 * <p>The same file, with the token counter of its snapshot raised to the restore's floor, is the
 * seed a restored data directory starts from ({@link #SEED_FILE}).
 */
public final class BackupFile {
    public static final int MAGIC = 0x544E424B; // "TNBK"
    public static final int FORMAT = 1;
    /** Where in a data directory the state a restored member starts from is kept. */
    public static final String SEED_FILE = "restore-seed.tnbk";
    /** A backup's snapshot is held in memory whole: bounded, so a bad length cannot ask for more. */
    public static final long snapshotBytesMax = 1L << 30;

    private static final int HEADER_BYTES = 4 + 4 + 8 * 4;
    private static final int SHA256_BYTES = 32;

    /** What a backup says about itself. */
    public record Header(long logPosition, long lastToken, long createdAtMs, long snapshotBytes) {}

    /** A backup read whole and checked. */
    // The bytes are handed on once and never changed: no copy of a state that may be large.
    @SuppressWarnings("ArrayRecordComponent")
    public record Backup(Header header, byte[] snapshot) {}

    /** A file that is not a whole, intact backup of a format this build reads. */
    public static final class BadBackupException extends IOException {
        private static final long serialVersionUID = 1L;

        BadBackupException(Path file, String why) {
            super("backup " + file + ": " + why);
        }
    }

    private BackupFile() {}

    /** Writes {@code snapshot} under {@code header} to {@code file}, whole or not at all (a temporary file moved into place). */
    public static void write(Path file, Header header, byte[] snapshot) throws IOException {
        if (header.snapshotBytes() != snapshot.length) {
            throw new IllegalArgumentException(
                    "header says " + header.snapshotBytes() + " snapshot bytes, got " + snapshot.length);
        }
        ByteBuffer head = ByteBuffer.allocate(HEADER_BYTES)
                .putInt(MAGIC)
                .putInt(FORMAT)
                .putLong(header.logPosition())
                .putLong(header.lastToken())
                .putLong(header.createdAtMs())
                .putLong(header.snapshotBytes());
        MessageDigest sha = sha256();
        sha.update(head.array());
        sha.update(snapshot);
        Path dir = file.toAbsolutePath().getParent();
        Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".part");
        try (var out = Files.newOutputStream(tmp)) {
            out.write(head.array());
            out.write(snapshot);
            out.write(sha.digest());
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** Reads and checks {@code file}: magic, format, length and checksum. */
    public static Backup read(Path file) throws IOException {
        try (InputStream raw = Files.newInputStream(file);
                DataInputStream in = new DataInputStream(raw)) {
            byte[] head = in.readNBytes(HEADER_BYTES);
            if (head.length < HEADER_BYTES) {
                throw new BadBackupException(file, "shorter than a backup's header");
            }
            ByteBuffer h = ByteBuffer.wrap(head);
            int magic = h.getInt();
            if (magic != MAGIC) {
                throw new BadBackupException(file, "not a backup (magic 0x" + Integer.toHexString(magic) + ")");
            }
            int format = h.getInt();
            if (format != FORMAT) {
                throw new BadBackupException(
                        file, "backup format " + format + " is not one this build reads (" + FORMAT + ")");
            }
            Header header = new Header(h.getLong(), h.getLong(), h.getLong(), h.getLong());
            if (header.snapshotBytes() < 0 || header.snapshotBytes() > snapshotBytesMax) {
                throw new BadBackupException(file, "snapshot length " + header.snapshotBytes() + " out of range");
            }
            byte[] snapshot = in.readNBytes((int) header.snapshotBytes());
            byte[] sum = in.readNBytes(SHA256_BYTES);
            if (snapshot.length != header.snapshotBytes() || sum.length != SHA256_BYTES) {
                throw new BadBackupException(file, "truncated");
            }
            if (in.read() != -1) {
                throw new BadBackupException(file, "bytes after the checksum");
            }
            MessageDigest sha = sha256();
            sha.update(head);
            sha.update(snapshot);
            if (!Arrays.equals(sha.digest(), sum)) {
                throw new BadBackupException(file, "checksum mismatch (the file is damaged)");
            }
            return new Backup(header, snapshot);
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
