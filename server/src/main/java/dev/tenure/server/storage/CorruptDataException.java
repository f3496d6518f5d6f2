package dev.tenure.server.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * A data file holds bytes the node did not write, or lacks bytes it did: the node must not start
 * from it, since whatever it replayed from there would be a state no replica acknowledged. The
 * message names the file, the byte in it, what that byte is in log terms, where the file ends,
 * what is wrong, and (once the node knows its own situation) what the operator can do.
 */
public final class CorruptDataException extends RuntimeException {

    private final Path file;
    private final long fileOffset;
    private final long fileEnd;
    private final String where;
    private final String reason;
    private final @Nullable String remedy;

    /**
     * @param file the damaged file
     * @param fileOffset the byte in the file where the damage starts (the frame that fails), or -1
     *     where the reader could not tell
     * @param where what that byte is, in log terms (e.g. {@code log position 4416})
     * @param reason what is wrong there
     */
    public CorruptDataException(Path file, long fileOffset, String where, String reason) {
        this(file, fileOffset, fileEnd(file, fileOffset), where, reason, null);
    }

    private CorruptDataException(
            Path file, long fileOffset, long fileEnd, String where, String reason, @Nullable String remedy) {
        super(
                file + (fileOffset < 0 ? "" : " at byte " + fileOffset) + " (" + where
                        + (fileEnd < 0 ? "" : "; the file ends at byte " + fileEnd) + "): " + reason
                        + (remedy == null ? "" : "; " + remedy),
                null,
                false,
                false);
        this.file = file;
        this.fileOffset = fileOffset;
        this.fileEnd = fileEnd;
        this.where = where;
        this.reason = reason;
        this.remedy = remedy;
    }

    /**
     * Where the file ends, said next to where the damage starts: an operator tells a file cut
     * short (a torn tail, a copy that stopped) from damage inside it by the two. -1 when there is
     * no byte to name, or the file cannot be read any more.
     */
    private static long fileEnd(Path file, long fileOffset) {
        if (fileOffset < 0 || !Files.isRegularFile(file)) {
            return -1;
        }
        try {
            return Files.size(file);
        } catch (IOException gone) {
            return -1;
        }
    }

    /** The same damage, with what the operator can do about it appended to the message. */
    public CorruptDataException withRemedy(String remedy) {
        return new CorruptDataException(file, fileOffset, fileEnd, where, reason, remedy);
    }

    /** The same damage, with {@code more} said about why it stops the node. */
    public CorruptDataException because(String more) {
        return new CorruptDataException(file, fileOffset, fileEnd, where, reason + "; " + more, remedy);
    }

    public Path file() {
        return file;
    }

    public long fileOffset() {
        return fileOffset;
    }

    public String where() {
        return where;
    }
}
