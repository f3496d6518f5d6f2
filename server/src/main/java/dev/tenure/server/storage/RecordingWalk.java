package dev.tenure.server.storage;

import dev.tenure.server.storage.ArchiveCatalog.Recording;
import io.aeron.archive.checksum.Checksum;
import io.aeron.archive.client.AeronArchive;
import io.aeron.logbuffer.LogBufferDescriptor;
import io.aeron.protocol.DataHeaderFlyweight;
import io.aeron.protocol.HeaderFlyweight;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.function.LongFunction;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.jspecify.annotations.Nullable;

/**
 * Reads one archived recording frame by frame, from a position to its end, and refuses it at the
 * first frame the archive did not write that way: read-only, so a damaged file is left as found.
 *
 * <p>What a frame must be: a header whose length, version, type, term offset, term id and stream
 * fit the recording and its position, and whose reserved value is 0 (nothing sets it); a CRC-32C of its payload equal to the one the archive stored
 * in the header's session id field when it wrote the frame (when the recording is checksummed);
 * zeros between the end of its payload and the next 32-byte boundary, where nothing is written; and
 * fragments that begin and end their entries in order. The checksum covers the payload only, not
 * the header, so a changed frame length that keeps the frame's 32-byte size passes it: a shorter
 * one is caught by the zeros, a longer one hands the entry trailing zeros, which {@link EntryCheck}
 * refuses for entries that would not ignore them.
 *
 * <p>Where the recording ends: at the catalog's stop position, or, for a recording the node was
 * killed while writing (no stop position yet), at the first frame length of zero, as the archive
 * itself finds it. After the end every byte of the segment file, and of any later segment file,
 * must be zero: the archive writes nothing there and zeroes what it truncates. So a frame length
 * zeroed or made negative, which would end the log early and drop acknowledged entries after
 * it, is refused by the bytes that follow; so is a file cut short before the end.
 */
public final class RecordingWalk {

    private static final int HEADER = DataHeaderFlyweight.HEADER_LENGTH;
    private static final int ALIGNMENT = 32;
    private static final int BEGIN = DataHeaderFlyweight.BEGIN_FLAG;
    private static final int END = DataHeaderFlyweight.END_FLAG;
    private static final Checksum CRC32C = FrameChecksum.CRC32C;

    /** Checks each whole entry (its fragments joined) of a recording, in order. */
    @FunctionalInterface
    public interface EntryCheck {
        /** Null if the entry at {@code position} is one its recording can hold; else what is wrong with it. */
        @Nullable
        String problem(long position, DirectBuffer buffer, int offset, int length);
    }

    private final Path archiveDir;
    private final Recording recording;
    private final boolean checksums;
    private final LongFunction<String> where;
    private final EntryCheck entries;
    private final int positionBitsToShift;
    private final ExpandableArrayBuffer assembly = new ExpandableArrayBuffer();
    private @Nullable Segment segment; // the one mapped, if any
    private boolean inEntry;
    private long entryPosition;
    private @Nullable Path entryFile; // set with inEntry
    private long entryOffset;
    private int entryLength;
    /** Where the last whole entry (or term padding) the walk checked ends. */
    private long wholeEnd;

    private RecordingWalk(
            Path archiveDir, Recording recording, boolean checksums, LongFunction<String> where, EntryCheck entries) {
        this.archiveDir = archiveDir;
        this.recording = recording;
        this.checksums = checksums;
        this.where = where;
        this.entries = entries;
        this.positionBitsToShift = LogBufferDescriptor.positionBitsToShift(recording.termLength());
    }

    /**
     * Checks {@code recording} from {@code from} to its end and returns the end position; throws
     * {@link CorruptDataException} at the first frame that fails.
     *
     * @param checksums whether the recording's frames carry CRC-32C checksums
     * @param where what a position of this recording is, for the operator (e.g. "log position N")
     */
    public static long check(
            Path archiveDir,
            Recording recording,
            long from,
            boolean checksums,
            LongFunction<String> where,
            EntryCheck entries) {
        requireUsable(archiveDir, recording, from, where);
        RecordingWalk walk = new RecordingWalk(archiveDir, recording, checksums, where, entries);
        try {
            return walk.run(from);
        } finally {
            walk.release();
        }
    }

    /**
     * Where the whole entries of {@code recording} from {@code from} end: its end if every frame
     * checks out, else the end of the last whole entry before the first frame that does not (see
     * {@link #check}). The log up to there is whole; what follows is what a torn append left.
     */
    public static long wholeEnd(
            Path archiveDir, Recording recording, long from, boolean checksums, EntryCheck entries) {
        requireUsable(archiveDir, recording, from, p -> "log position " + p);
        RecordingWalk walk = new RecordingWalk(archiveDir, recording, checksums, p -> "log position " + p, entries);
        walk.wholeEnd = from;
        try {
            return walk.run(from);
        } catch (CorruptDataException damaged) {
            return walk.wholeEnd;
        } finally {
            walk.release();
        }
    }

    private long run(long from) {
        long position = from;
        while (!atRecordedStop(position)) {
            Segment s = segmentAt(position);
            if (s == null) {
                break; // an open recording whose last segment file was never created: it ends here
            }
            int offset = (int) (position - s.base);
            if (offset + HEADER > s.size) {
                throw truncated(s, offset, position);
            }
            int frameLength = s.buffer.getInt(offset, ByteOrder.LITTLE_ENDIAN);
            if (frameLength == 0 && recording.open()) {
                break; // the end, as the archive finds it after a crash
            }
            position += checkFrame(s, offset, position, frameLength);
            if (!inEntry) {
                wholeEnd = position;
            }
        }
        if (inEntry) {
            throw corrupt(entryFile(), entryOffset, entryPosition, "the recording ends inside this fragmented entry");
        }
        requireNothingAfter(position);
        return position;
    }

    private boolean atRecordedStop(long position) {
        return !recording.open() && position >= recording.stopPosition();
    }

    /** Checks the frame at {@code offset}; returns its aligned length. */
    private int checkFrame(Segment s, int offset, long position, int frameLength) {
        int termLength = recording.termLength();
        int termOffset = (int) (position & (termLength - 1));
        if (frameLength == 0) {
            throw corrupt(
                    s.file,
                    offset,
                    position,
                    "the frame length is 0, but the catalog records this recording up to position "
                            + recording.stopPosition());
        }
        if (frameLength < HEADER || frameLength > termLength - termOffset) {
            throw corrupt(
                    s.file,
                    offset,
                    position,
                    "frame length " + frameLength + " does not fit the " + (termLength - termOffset)
                            + " bytes left in its term");
        }
        int aligned = (frameLength + ALIGNMENT - 1) & -ALIGNMENT;
        if (offset + aligned > s.size) {
            throw truncated(s, offset, position);
        }
        if (!recording.open() && position + aligned > recording.stopPosition()) {
            throw corrupt(
                    s.file,
                    offset,
                    position,
                    "the frame (" + frameLength + " bytes) runs past the recording's end at position "
                            + recording.stopPosition());
        }
        String header = headerProblem(s.buffer, offset, position, termOffset);
        if (header != null) {
            throw corrupt(s.file, offset, position, header);
        }
        if (s.buffer.getShort(offset + HeaderFlyweight.TYPE_FIELD_OFFSET, ByteOrder.LITTLE_ENDIAN)
                == HeaderFlyweight.HDR_TYPE_PAD) {
            checkPadding(s, offset, position, termOffset + aligned == termLength);
        } else {
            checkData(s, offset, position, frameLength, aligned);
        }
        return aligned;
    }

    private @Nullable String headerProblem(UnsafeBuffer buffer, int offset, long position, int termOffset) {
        int version = buffer.getByte(offset + HeaderFlyweight.VERSION_FIELD_OFFSET) & 0xff;
        int type = buffer.getShort(offset + HeaderFlyweight.TYPE_FIELD_OFFSET, ByteOrder.LITTLE_ENDIAN) & 0xffff;
        int frameTermOffset =
                buffer.getInt(offset + DataHeaderFlyweight.TERM_OFFSET_FIELD_OFFSET, ByteOrder.LITTLE_ENDIAN);
        int streamId = buffer.getInt(offset + DataHeaderFlyweight.STREAM_ID_FIELD_OFFSET, ByteOrder.LITTLE_ENDIAN);
        int termId = buffer.getInt(offset + DataHeaderFlyweight.TERM_ID_FIELD_OFFSET, ByteOrder.LITTLE_ENDIAN);
        long reserved = buffer.getLong(offset + DataHeaderFlyweight.RESERVED_VALUE_OFFSET, ByteOrder.LITTLE_ENDIAN);
        int expectedTermId =
                LogBufferDescriptor.computeTermIdFromPosition(position, positionBitsToShift, recording.initialTermId());
        if (version != HeaderFlyweight.CURRENT_VERSION) {
            return "frame version " + version + ", the archive writes " + HeaderFlyweight.CURRENT_VERSION;
        }
        if (type != HeaderFlyweight.HDR_TYPE_DATA && type != HeaderFlyweight.HDR_TYPE_PAD) {
            return "frame type " + type + " is neither data nor padding";
        }
        if (frameTermOffset != termOffset || termId != expectedTermId || streamId != recording.streamId()) {
            return "the frame header says term offset " + frameTermOffset + ", term id " + termId + ", stream "
                    + streamId + "; its position and the archive catalog say " + termOffset + ", " + expectedTermId
                    + ", " + recording.streamId();
        }
        if (reserved != 0) {
            // Aeron Cluster offers no reserved value for its log or snapshots, so it is always 0.
            return "reserved value " + reserved + " where nothing writes one";
        }
        return null;
    }

    private void checkPadding(Segment s, int offset, long position, boolean endsTerm) {
        if (!endsTerm) {
            throw corrupt(s.file, offset, position, "a padding frame that does not end its term");
        }
        if (inEntry) {
            throw corrupt(entryFile(), entryOffset, entryPosition, "the term ends inside this fragmented entry");
        }
    }

    private void checkData(Segment s, int offset, long position, int frameLength, int aligned) {
        UnsafeBuffer buffer = s.buffer;
        if (checksums) {
            int recorded = buffer.getInt(offset + DataHeaderFlyweight.SESSION_ID_FIELD_OFFSET, ByteOrder.LITTLE_ENDIAN);
            int computed = CRC32C.compute(buffer.addressOffset(), offset + HEADER, aligned - HEADER);
            if (recorded != computed) {
                throw corrupt(
                        s.file,
                        offset,
                        position,
                        String.format(
                                "checksum mismatch (CRC-32C recorded 0x%08x, computed 0x%08x)", recorded, computed));
            }
        }
        for (int i = offset + frameLength; i < offset + aligned; i++) {
            if (buffer.getByte(i) != 0) {
                throw corrupt(
                        s.file,
                        offset,
                        position,
                        "byte " + (i - offset) + " of the frame lies past its length " + frameLength
                                + " and should be 0; the frame length is wrong");
            }
        }
        int flags = buffer.getByte(offset + HeaderFlyweight.FLAGS_FIELD_OFFSET) & 0xff;
        if ((flags & ~(BEGIN | END)) != 0) {
            throw corrupt(s.file, offset, position, String.format("frame flags 0x%02x on a data frame", flags));
        }
        joinFragment(s, offset, position, frameLength, flags);
    }

    private void joinFragment(Segment s, int offset, long position, int frameLength, int flags) {
        boolean begin = (flags & BEGIN) != 0;
        boolean end = (flags & END) != 0;
        if (begin && inEntry) {
            throw corrupt(entryFile(), entryOffset, entryPosition, "the next entry begins before this one ended");
        }
        if (!begin && !inEntry) {
            throw corrupt(s.file, offset, position, "a fragment whose entry has no beginning");
        }
        if (!end && (frameLength & (ALIGNMENT - 1)) != 0) {
            // Aeron cuts an entry at its MTU, a multiple of 32: only the last fragment is shorter.
            throw corrupt(
                    s.file, offset, position, "a fragment of " + frameLength + " bytes that is not its entry's last");
        }
        int payload = frameLength - HEADER;
        if (begin && end) {
            entryProblem(s.file, offset, position, s.buffer, offset + HEADER, payload);
            return;
        }
        if (begin) {
            inEntry = true;
            entryPosition = position;
            entryFile = s.file;
            entryOffset = offset;
            entryLength = 0;
        }
        assembly.putBytes(entryLength, s.buffer, offset + HEADER, payload);
        entryLength += payload;
        if (end) {
            inEntry = false;
            entryProblem(entryFile(), entryOffset, entryPosition, assembly, 0, entryLength);
        }
    }

    private void entryProblem(Path file, long fileOffset, long position, DirectBuffer buffer, int offset, int length) {
        String problem = entries.problem(position, buffer, offset, length);
        if (problem != null) {
            throw corrupt(file, fileOffset, position, problem);
        }
    }

    /** After the end, the archive has written nothing: any byte that is not zero was data. */
    private void requireNothingAfter(long end) {
        long base = AeronArchive.segmentFileBasePosition(
                recording.startPosition(), end, recording.termLength(), recording.segmentLength());
        for (long next = base; ; next += recording.segmentLength()) {
            Segment s = map(next);
            if (s == null) {
                return;
            }
            int from = next == base ? (int) (end - base) : 0;
            int data = firstNonZero(s.buffer, from, s.size);
            if (data >= 0) {
                throw corrupt(s.file, data, next + data, nothingAfter(end));
            }
        }
    }

    /** The first byte in [from, to) that is not zero, or -1. */
    private static int firstNonZero(UnsafeBuffer buffer, int from, int to) {
        int i = from;
        for (; i < to && (i & 7) != 0; i++) {
            if (buffer.getByte(i) != 0) {
                return i;
            }
        }
        for (; i + 8 <= to; i += 8) {
            if (buffer.getLong(i) != 0) {
                break;
            }
        }
        for (; i < to; i++) {
            if (buffer.getByte(i) != 0) {
                return i;
            }
        }
        return -1;
    }

    private String nothingAfter(long end) {
        return "data after the recording's end at position " + end
                + (recording.open() ? " (where a frame length is 0)" : "")
                + ": a frame length or the file before it is damaged";
    }

    private @Nullable Segment segmentAt(long position) {
        long base = AeronArchive.segmentFileBasePosition(
                recording.startPosition(), position, recording.termLength(), recording.segmentLength());
        if (segment != null && segment.base == base) {
            return segment;
        }
        Segment s = map(base);
        if (s == null && !(recording.open() && position == base && position > recording.startPosition())) {
            Path file = archiveDir.resolve(recording.recordingId() + "-" + base + ArchiveCatalog.SEGMENT_SUFFIX);
            throw corrupt(file, 0, position, "the segment file is missing");
        }
        return s;
    }

    /** Maps the segment file at {@code base}, or returns null if there is none. */
    private @Nullable Segment map(long base) {
        Path file = archiveDir.resolve(recording.recordingId() + "-" + base + ArchiveCatalog.SEGMENT_SUFFIX);
        if (segment != null && segment.base == base) {
            return segment;
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = Math.min(channel.size(), recording.segmentLength());
            MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
            release();
            segment = new Segment(file, base, (int) size, mapped);
            return segment;
        } catch (NoSuchFileException missing) {
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /** The file the entry being assembled began in: read only once one has begun. */
    private Path entryFile() {
        return Objects.requireNonNull(entryFile, "set when an entry begins");
    }

    private void release() {
        if (segment != null) {
            BufferUtil.free(segment.mapped);
            segment = null;
        }
    }

    private CorruptDataException truncated(Segment s, int offset, long position) {
        return corrupt(
                s.file,
                offset,
                position,
                "the file ends before this frame does (a segment file is " + recording.segmentLength()
                        + " bytes): it was cut short");
    }

    private CorruptDataException corrupt(Path file, long fileOffset, long position, String reason) {
        return new CorruptDataException(file, fileOffset, where.apply(position), reason);
    }

    /** Refuses a recording whose catalog entry cannot describe frames, before reading any. */
    private static void requireUsable(Path archiveDir, Recording r, long from, LongFunction<String> where) {
        String problem = null;
        if (Integer.bitCount(r.termLength()) != 1 || r.termLength() < LogBufferDescriptor.TERM_MIN_LENGTH) {
            problem = "term length " + r.termLength() + " is not a power of two of at least 64 KiB";
        } else if (Integer.bitCount(r.segmentLength()) != 1 || r.segmentLength() < r.termLength()) {
            problem = "segment length " + r.segmentLength() + " is not a power of two of at least the term length";
        } else if ((r.startPosition() & (ALIGNMENT - 1)) != 0 || r.startPosition() < 0) {
            problem = "start position " + r.startPosition() + " is not a frame boundary";
        } else if (!r.open() && (r.stopPosition() < r.startPosition() || (r.stopPosition() & (ALIGNMENT - 1)) != 0)) {
            problem = "stop position " + r.stopPosition() + " is not a frame boundary after the start "
                    + r.startPosition();
        } else if (from < r.startPosition() || (from & (ALIGNMENT - 1)) != 0) {
            problem = "recovery needs it from position " + from + ", it starts at " + r.startPosition();
        } else if (!r.open() && from > r.stopPosition()) {
            problem = "recovery needs it from position " + from + ", it ends at " + r.stopPosition();
        }
        if (problem != null) {
            throw new CorruptDataException(
                    archiveDir.resolve("archive.catalog"),
                    0,
                    "recording " + r.recordingId() + ", " + where.apply(from),
                    problem);
        }
    }

    private record Segment(Path file, long base, int size, MappedByteBuffer mapped, UnsafeBuffer buffer) {
        Segment(Path file, long base, int size, MappedByteBuffer mapped) {
            this(file, base, size, mapped, new UnsafeBuffer(mapped));
        }
    }
}
