package dev.tenure.server.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Which layout a data directory's files have, named by a file of its own ({@value #FILE}): a node
 * must know whether the frames it replays carry checksums before it asks the archive to check
 * them, and cannot tell a frame without one from a damaged frame.
 *
 * <ul>
 *   <li>Format 1 (no such file): written by releases before log checksums; no frame carries one.
 *   <li>Format 2: every frame of the log and of the snapshots carries a CRC-32C of its payload.
 * </ul>
 *
 * <p>A new directory gets the current format before anything else is written to it. A format-1
 * directory is refused, not silently converted: its frames were never checked, so checksumming
 * them as they are would vouch for bytes nobody checked. {@code tenure upgrade-data} does that once,
 * on the operator's word, after checking what it can (the frames' structure, every entry).
 */
public final class DataFormat {

    public static final String FILE = "tenure-format";
    public static final int CURRENT = 2;

    private static final String FIRST_LINE = "tenure data format ";
    private static final String DESCRIPTION = "log and snapshot frames carry CRC-32C checksums of their payloads";

    /** The directories and files that hold a member's data, as the node lays them out. */
    private static final List<String> DATA = List.of("archive/archive.catalog", "cluster/recording.log");

    private DataFormat() {}

    /**
     * Accepts a directory of the current format, gives one that holds no data yet the current
     * format, and refuses any other with a line that says what to do. Call with the directory
     * locked, before anything else writes to it.
     */
    public static void require(Path dataDir) throws IOException {
        int format = read(dataDir);
        if (format == CURRENT) {
            return;
        }
        if (format == 1) {
            throw new IOException("data directory " + dataDir.toAbsolutePath().normalize() + " was written by a release"
                    + " without log checksums (it has no " + FILE + " file): run `tenure upgrade-data --data "
                    + dataDir + "` once with the node stopped, or rebuild this member from its peers"
                    + " (docs/cluster.md#a-corrupt-or-unreadable-data-file)");
        }
        if (format == 0) {
            write(dataDir);
            return;
        }
        throw new IOException("data directory " + dataDir.toAbsolutePath().normalize() + " is in data format " + format
                + " (" + FILE + "), written by a newer release; this release reads format " + CURRENT + " only");
    }

    /**
     * The directory's format: {@link #CURRENT} or another number its file names, 1 for data
     * without the file, 0 for no data yet.
     */
    public static int read(Path dataDir) throws IOException {
        Path file = dataDir.resolve(FILE);
        if (!Files.exists(file)) {
            return holdsData(dataDir) ? 1 : 0;
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (CharacterCodingException notText) {
            throw new CorruptDataException(file, 0, "the data directory's format", "the file is not UTF-8 text");
        } catch (IOException e) {
            // The JDK's "Is a directory" names no file.
            throw new IOException(file + " cannot be read: " + FileErrors.reason(e, file), e);
        }
        String first = lines.isEmpty() ? "" : lines.get(0);
        if (first.startsWith(FIRST_LINE)) {
            try {
                return Integer.parseInt(first.substring(FIRST_LINE.length()).trim());
            } catch (NumberFormatException notANumber) {
                // said below
            }
        }
        throw new CorruptDataException(
                file,
                0,
                "the data directory's format",
                "the first line is not \"" + FIRST_LINE + "N\" but \"" + first + "\"");
    }

    /**
     * Brings a format-1 directory to the current format, once, with the node stopped and the
     * directory locked: checks the structure of everything a start recovers from (frames and
     * entries, without checksums, which it lacks; a damaged snapshot is set aside as at start),
     * checksums every frame of every recording as it is, checks again with the checksums, and only
     * then names the new format. Stopped half-way it is simply run again. Returns one line that
     * says what it did.
     */
    public static String upgrade(Path dataDir, Consumer<String> notes) throws IOException {
        Path where = dataDir.toAbsolutePath().normalize();
        int format = read(dataDir);
        if (format == CURRENT) {
            return "data directory " + where + " is in format " + CURRENT + " already: nothing to do";
        }
        if (format == 0) {
            write(dataDir);
            return "data directory " + where + " holds no data yet: marked format " + CURRENT;
        }
        if (format != 1) {
            throw new IOException("data directory " + where + " is in data format " + format
                    + ", written by a newer release; this release reads format " + CURRENT + " only");
        }
        RecoveryCheck.run(dataDir, false, notes);
        long frames = FrameChecksums.addTo(dataDir.resolve("archive"));
        RecoveryCheck.run(dataDir, true, notes);
        write(dataDir);
        return "data directory " + where + " upgraded to format " + CURRENT + ": " + frames + " frames checksummed as"
                + " they were, after their structure and every entry a start recovers from checked out; damage older"
                + " than this upgrade that kept that structure is not detected";
    }

    /** Gives {@code dataDir} the current format: written whole or not at all, and synced. */
    public static void write(Path dataDir) throws IOException {
        Path file = dataDir.resolve(FILE);
        Path next = dataDir.resolve(FILE + ".new");
        byte[] text = (FIRST_LINE + CURRENT + "\n" + DESCRIPTION + "\n").getBytes(StandardCharsets.UTF_8);
        try (FileChannel channel = FileChannel.open(
                next, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            ByteBuffer buffer = ByteBuffer.wrap(text);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(true);
        }
        Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel dir = FileChannel.open(dataDir, StandardOpenOption.READ)) {
            dir.force(true);
        }
    }

    private static boolean holdsData(Path dataDir) throws IOException {
        for (String data : DATA) {
            if (Files.exists(dataDir.resolve(data))) {
                return true;
            }
        }
        Path archive = dataDir.resolve("archive");
        if (!Files.isDirectory(archive)) {
            return false;
        }
        try (Stream<Path> files = Files.list(archive)) {
            return files.anyMatch(f -> f.getFileName().toString().endsWith(ArchiveCatalog.SEGMENT_SUFFIX));
        }
    }
}
